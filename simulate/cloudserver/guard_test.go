package cloudserver

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// A caller without the cluster's token can do nothing: not terminate an
// instance, not change faults, not read the audit, and leaves no line in
// the audit under the component it claims to be.
func TestCallsWithoutTheTokenAreRefused(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	for _, token := range []string{"", "wrong", rigToken + "x"} {
		c := r.client("cloud-controller-manager")
		c.Token = token
		calls := map[string]func() error{
			"TerminateInstance": func() error { return c.TerminateInstance(ctx, "c-worker") },
			"SetFaults":         func() error { return c.SetFaults(ctx, api.Faults{}) },
			"ListInstances":     func() error { _, err := c.Instances(ctx, "node-controller"); return err },
			"Audit":             func() error { _, err := c.Audit(ctx, r.now); return err },
		}
		for name, call := range calls {
			var se *api.StatusError
			if err := call(); !errors.As(err, &se) || se.Code != http.StatusUnauthorized {
				t.Errorf("%s with token %q: %v, want 401", name, token, err)
			}
		}
	}
	if len(r.fakes.stopped) != 0 {
		t.Fatalf("an unauthenticated call terminated %v", r.fakes.stopped)
	}
	if got := r.server.Refused(); got != 12 {
		t.Errorf("refused %d calls, want 12", got)
	}
	audit, err := r.admin().Audit(ctx, r.now.Add(-1))
	if err != nil || len(audit) != 0 {
		t.Fatalf("the audit holds refused calls: %+v %v", audit, err)
	}
}

func TestOversizedBodiesAreRefused(t *testing.T) {
	r := newRig(t, t.TempDir())
	body := `{"service":"` + strings.Repeat("x", MaxRequestBody) + `"}`
	req, _ := http.NewRequest(http.MethodPut, r.url+"/v1/loadbalancers/big", bytes.NewBufferString(body))
	r.client("cloud-controller-manager").Sign(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a %d-byte body: %d, want 413", len(body), resp.StatusCode)
	}
}

// Routes stay inside the cluster's pod network and point at its instances:
// the network agents program whatever the table says.
func TestRoutesOutsideTheClusterAreRefused(t *testing.T) {
	r := newRig(t, t.TempDir())
	kcm := r.client("kube-controller-manager")
	ctx := context.Background()
	for _, rt := range []api.Route{
		{Name: "c-host", DestinationCIDR: "0.0.0.0/0", TargetInstance: "c-worker"},
		{Name: "c-wide", DestinationCIDR: "10.0.0.0/8", TargetInstance: "c-worker"},
		{Name: "c-elsewhere", DestinationCIDR: "192.168.1.0/24", TargetInstance: "c-worker"},
		{Name: "c-stranger", DestinationCIDR: "10.244.3.0/24", TargetInstance: "another-cluster-worker"},
	} {
		var se *api.StatusError
		if err := kcm.CreateRoute(ctx, "route_controller", rt); !errors.As(err, &se) || se.Code != http.StatusBadRequest {
			t.Errorf("route %+v: %v, want 400", rt, err)
		}
	}
	if len(r.fakes.routes) != 0 {
		t.Fatalf("programmed %+v", r.fakes.routes)
	}
	if err := kcm.CreateRoute(ctx, "route_controller", api.Route{Name: "c-ok", DestinationCIDR: "10.244.3.0/24", TargetInstance: "c-worker2"}); err != nil {
		t.Fatalf("a route inside the pod network to an instance: %v", err)
	}
}

// Load balancers relay only to the cluster's instances, including one
// terminated since it was listed (its Node may still be a backend).
func TestBackendsOutsideTheClusterAreRefused(t *testing.T) {
	r := newRig(t, t.TempDir())
	ccm := r.client("cloud-controller-manager")
	ctx := context.Background()
	spec := func(nodes ...string) api.LoadBalancerSpec {
		return api.LoadBalancerSpec{Service: "default/web", Ports: []api.Port{{Port: 80, NodePort: 30080, Protocol: "TCP"}}, Nodes: nodes}
	}
	for _, bad := range []string{"127.0.0.1", "172.18.0.77", "8.8.8.8"} {
		var se *api.StatusError
		if _, err := ccm.EnsureLoadBalancer(ctx, "service-lb-controller", "lb", spec("172.18.0.4", bad)); !errors.As(err, &se) || se.Code != http.StatusBadRequest || !strings.Contains(se.Message, bad) {
			t.Errorf("backend %s: %v, want 400 naming it", bad, err)
		}
	}
	if len(r.fakes.lbs) != 0 {
		t.Fatalf("load balancers made: %v", r.fakes.lbs)
	}
	if _, err := ccm.EnsureLoadBalancer(ctx, "service-lb-controller", "lb", spec("172.18.0.4", "172.18.0.5")); err != nil {
		t.Fatal(err)
	}
	r.fakes.mu.Lock()
	r.fakes.instances = r.fakes.instances[:1] // c-worker2 is gone
	r.fakes.mu.Unlock()
	if _, err := ccm.UpdateLoadBalancer(ctx, "service-lb-controller", "lb", spec("172.18.0.4", "172.18.0.5")); err != nil {
		t.Fatalf("a backend terminated since it was seen: %v", err)
	}
}

// A node holds the cluster's token, not the admin token: with it, no admin
// route answers (403) and none leaves a line in the audit, while the host's
// admin token calls every route.
func TestANodesTokenCannotCallTheAdminRoutes(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	node := r.client("kubelet")
	calls := map[string]func() error{
		"SetFaults":             func() error { return node.SetFaults(ctx, api.Faults{ThrottleQPS: 1}) },
		"GetFaults":             func() error { _, err := node.Faults(ctx); return err },
		"TerminateInstance":     func() error { return node.TerminateInstance(ctx, "c-worker") },
		"AddVirtualInstance":    func() error { _, err := AddVirtualInstance(ctx, node, "fake-1"); return err },
		"AddVirtualLBNamespace": func() error { return MakeLoadBalancersVirtual(ctx, node, "default") },
		"Audit":                 func() error { _, err := node.Audit(ctx, r.now); return err },
	}
	for name, call := range calls {
		var se *api.StatusError
		if err := call(); !errors.As(err, &se) || se.Code != http.StatusForbidden {
			t.Errorf("%s with a node's token: %v, want 403", name, err)
		}
	}
	if _, _, err := AuditAfter(ctx, node, 0); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("the audit by position with a node's token: %v, want 403", err)
	}
	if len(r.fakes.stopped) != 0 {
		t.Fatalf("a node's token terminated %v", r.fakes.stopped)
	}
	admin := r.admin()
	if f, err := admin.Faults(ctx); err != nil || f.ThrottleQPS != 0 {
		t.Errorf("a node's token set faults: %+v %v", f, err)
	}
	if _, err := admin.Instances(ctx, ""); err != nil {
		t.Errorf("the admin token on a cloud route: %v", err)
	}
	audit, err := admin.Audit(ctx, r.now.Add(-1))
	if err != nil || len(audit) != 2 {
		t.Fatalf("the audit holds %+v (%v), want the admin's two calls", audit, err)
	}
}

func TestTheTokensGoTogetherAndDiffer(t *testing.T) {
	for _, o := range []Options{{Token: "t"}, {AdminToken: "a"}, {Token: "t", AdminToken: "t"}} {
		if _, err := New(o); err == nil {
			t.Errorf("tokens %q/%q accepted", o.Token, o.AdminToken)
		}
	}
}

// A health check the load balancer cannot run is refused with why, and
// nothing is made.
func TestUnrunnableHealthChecksAreRefused(t *testing.T) {
	r := newRig(t, t.TempDir())
	ccm := r.client("cloud-controller-manager")
	ok := api.HealthCheck{Protocol: "TCP", Port: 30080, Interval: 10, Timeout: 5, Healthy: 2, Unhealthy: 6}
	for _, bad := range []func(*api.HealthCheck){
		func(h *api.HealthCheck) { h.Protocol = "UDP" },
		func(h *api.HealthCheck) { h.Port = 0 },
		func(h *api.HealthCheck) { h.Path = "/healthz" },
		func(h *api.HealthCheck) { h.Protocol = "HTTP" },
		func(h *api.HealthCheck) { h.Interval = 0 },
	} {
		hc := ok
		bad(&hc)
		spec := api.LoadBalancerSpec{Service: "default/web", Ports: []api.Port{{Port: 80, NodePort: 30080, Protocol: "TCP"}}, Nodes: []string{"172.18.0.4"}, HealthCheck: &hc}
		var se *api.StatusError
		if _, err := ccm.EnsureLoadBalancer(context.Background(), "service-lb-controller", "lb", spec); !errors.As(err, &se) || se.Code != http.StatusBadRequest || !strings.Contains(se.Message, "health check") {
			t.Errorf("%+v: %v, want 400", hc, err)
		}
	}
	if len(r.fakes.lbs) != 0 {
		t.Fatalf("load balancers made: %v", r.fakes.lbs)
	}
}

// Traffic dropped to anything but one of the load balancer's nodes at a
// port is refused with why, and nothing is made.
func TestDroppedTrafficNamesTheNodes(t *testing.T) {
	r := newRig(t, t.TempDir())
	ccm := r.client("cloud-controller-manager")
	for _, bad := range []string{"172.18.0.5:30080", "172.18.0.4", "172.18.0.4:0", "172.18.0.4:http"} {
		spec := api.LoadBalancerSpec{Service: "default/web", Ports: []api.Port{{Port: 80, NodePort: 30080, Protocol: "TCP"}}, Nodes: []string{"172.18.0.4"}, Dropped: []string{bad}}
		var se *api.StatusError
		if _, err := ccm.EnsureLoadBalancer(context.Background(), "service-lb-controller", "lb", spec); !errors.As(err, &se) || se.Code != http.StatusBadRequest || !strings.Contains(se.Message, "dropped") {
			t.Errorf("dropped %q: %v, want 400", bad, err)
		}
	}
	if len(r.fakes.lbs) != 0 {
		t.Fatalf("load balancers made: %v", r.fakes.lbs)
	}
}

// Connection draining beyond ELB's 1–3600 s is refused, and nothing is
// made.
func TestDrainingTimeoutIsBounded(t *testing.T) {
	r := newRig(t, t.TempDir())
	ccm := r.client("cloud-controller-manager")
	for _, bad := range []int32{0, 3601} {
		spec := api.LoadBalancerSpec{Service: "default/web", Ports: []api.Port{{Port: 80, NodePort: 30080, Protocol: "TCP"}}, Nodes: []string{"172.18.0.4"},
			Draining: &api.Draining{Enabled: true, Timeout: bad}}
		var se *api.StatusError
		if _, err := ccm.EnsureLoadBalancer(context.Background(), "service-lb-controller", "lb", spec); !errors.As(err, &se) || se.Code != http.StatusBadRequest || !strings.Contains(se.Message, "draining") {
			t.Errorf("draining %d s: %v, want 400", bad, err)
		}
	}
	if len(r.fakes.lbs) != 0 {
		t.Fatalf("load balancers made: %v", r.fakes.lbs)
	}
}
