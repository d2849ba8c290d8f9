package cloudserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
	"github.com/handover-sh/handover/simulate/cloudprovider/provider"
)

// fakeBackends tells the truth about what the cloud asked of them.
type fakeBackends struct {
	mu        sync.Mutex
	instances []api.Instance
	lbs       map[string]api.LoadBalancer
	deleted   []string
	routes    []api.Route
	failLB    error
	stopped   []string
}

func (f *fakeBackends) Terminate(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = append(f.stopped, name)
	return nil
}

func newFakes() *fakeBackends {
	inst := func(name, zone, ip string) api.Instance {
		return api.Instance{Name: name, ProviderID: "kind://docker/c/" + name, Type: "sim.worker", Region: "region-1",
			Zone: zone, State: api.StateRunning, Addresses: []api.Address{{Type: "InternalIP", Address: ip}}}
	}
	return &fakeBackends{instances: []api.Instance{inst("c-worker", "zone-a", "172.18.0.4"), inst("c-worker2", "zone-b", "172.18.0.5")},
		lbs: map[string]api.LoadBalancer{}}
}

func (f *fakeBackends) List(context.Context) ([]api.Instance, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]api.Instance(nil), f.instances...), nil
}

func (f *fakeBackends) Ensure(_ context.Context, lb api.LoadBalancer) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failLB != nil {
		return "", f.failLB
	}
	f.lbs[lb.Name] = lb
	return "172.18.100.1", nil
}

func (f *fakeBackends) Delete(_ context.Context, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.lbs, name)
	f.deleted = append(f.deleted, name)
	return nil
}

func (f *fakeBackends) Sync(_ context.Context, routes []api.Route) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes = routes
	return nil
}

// rigToken is the test cloud's credential, every node's; rigAdminToken
// the host's.
const (
	rigToken      = "test-token"
	rigAdminToken = "test-admin-token"
)

type rig struct {
	server *Server
	fakes  *fakeBackends
	url    string
	now    time.Time
}

func newRig(t *testing.T, dir string) *rig {
	t.Helper()
	r := &rig{fakes: newFakes(), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s, err := New(Options{Backends: Backends{Instances: r.fakes, LoadBalancers: r.fakes, Routes: r.fakes},
		StatePath: filepath.Join(dir, "state.json"), AuditPath: filepath.Join(dir, "audit.jsonl"),
		Now: func() time.Time { return r.now }, Token: rigToken, AdminToken: rigAdminToken, PodNetwork: mustCIDR(t, "10.244.0.0/16")})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	r.server, r.url = s, ts.URL
	return r
}

// client calls the rig's cloud with its token, as component.
func (r *rig) client(component string) *api.Client {
	c := api.NewClient(r.url, component)
	c.Token = rigToken
	return c
}

// admin calls the rig's cloud as handover on the host, with the admin
// token.
func (r *rig) admin() *api.Client {
	c := api.NewClient(r.url, "handover")
	c.Token = rigAdminToken
	return c
}

func (r *rig) cloud(component string) *provider.Cloud {
	return provider.NewWithClient(r.client(component), "c-worker", behaviour.Behaviour{})
}

func mustCIDR(t *testing.T, s string) *net.IPNet {
	t.Helper()
	_, n, err := net.ParseCIDR(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func node(name string) *v1.Node { return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}} }

func TestInstancesAttributedToCaller(t *testing.T) {
	r := newRig(t, t.TempDir())
	ccm := r.cloud("cloud-controller-manager")
	md, err := ccm.InstanceMetadata(context.Background(), node("c-worker2"))
	if err != nil {
		t.Fatal(err)
	}
	if md.ProviderID != "kind://docker/c/c-worker2" || md.Zone != "zone-b" || md.Region != "region-1" || md.InstanceType != "sim.worker" {
		t.Fatalf("metadata %+v", md)
	}
	exists, err := ccm.InstanceExists(context.Background(), &v1.Node{Spec: v1.NodeSpec{ProviderID: "kind://docker/c/c-worker"}})
	if err != nil || !exists {
		t.Fatalf("exists=%v err=%v", exists, err)
	}
	audit := r.server.audit.since(time.Time{})
	if len(audit) != 2 {
		t.Fatalf("want 2 audit entries, got %+v", audit)
	}
	if a := audit[0]; a.Component != "cloud-controller-manager" || a.Controller != "cloud-node-controller" || a.Operation != "GetInstance" || a.Resource != "c-worker2" || a.Status != 200 {
		t.Fatalf("first entry %+v", a)
	}
	if a := audit[1]; a.Controller != "cloud-node-lifecycle-controller" || a.Resource != "kind://docker/c/c-worker" {
		t.Fatalf("second entry %+v", a)
	}
}

func TestTerminatedInstanceIsGone(t *testing.T) {
	r := newRig(t, t.TempDir())
	kcm := r.cloud("kube-controller-manager")
	if err := r.admin().TerminateInstance(context.Background(), "c-worker2"); err != nil {
		t.Fatal(err)
	}
	exists, err := kcm.InstanceExists(context.Background(), node("c-worker2"))
	if err != nil || exists {
		t.Fatalf("terminated instance: exists=%v err=%v", exists, err)
	}
	if len(r.fakes.stopped) != 1 || r.fakes.stopped[0] != "c-worker2" {
		t.Fatalf("the machine was not stopped: %v", r.fakes.stopped)
	}
	if err := r.admin().TerminateInstance(context.Background(), "nope"); !api.IsNotFound(err) {
		t.Fatalf("terminating a missing instance: %v", err)
	}
}

func TestKubeletProviderIDMatchesCloudProviderID(t *testing.T) {
	r := newRig(t, t.TempDir())
	kubelet := r.cloud("kubelet")
	inst, _ := kubelet.Instances()
	id, err := inst.InstanceID(context.Background(), types.NodeName("c-worker"))
	if err != nil {
		t.Fatal(err)
	}
	// The kubelet builds its ProviderID as <provider name>://<instance ID>.
	if got := kubelet.ProviderName() + "://" + id; got != "kind://docker/c/c-worker" {
		t.Fatalf("kubelet ProviderID %s", got)
	}
	if _, err := inst.InstanceID(context.Background(), "missing"); !errors.Is(err, cloudprovider.InstanceNotFound) {
		t.Fatalf("missing instance: %v", err)
	}
	zone, err := kubelet.GetZone(context.Background())
	if err != nil || zone.FailureDomain != "zone-a" {
		t.Fatalf("zone %+v %v", zone, err)
	}
}

func service() *v1.Service {
	return &v1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "1234-5678"},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeLoadBalancer, Ports: []v1.ServicePort{{Port: 80, NodePort: 30080, Protocol: v1.ProtocolTCP}}}}
}

func readyNode(ip string) *v1.Node {
	n := node("n-" + ip)
	n.Status.Addresses = []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: ip}}
	return n
}

func TestLoadBalancerLifecycle(t *testing.T) {
	r := newRig(t, t.TempDir())
	ccm := r.cloud("cloud-controller-manager")
	ctx := context.Background()
	st, err := ccm.EnsureLoadBalancer(ctx, "c", service(), []*v1.Node{readyNode("172.18.0.4"), readyNode("172.18.0.5")})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Ingress) != 1 || st.Ingress[0].IP != "172.18.100.1" {
		t.Fatalf("status %+v", st)
	}
	name := ccm.GetLoadBalancerName(ctx, "c", service())
	if lb := r.fakes.lbs[name]; len(lb.Spec.Nodes) != 2 || lb.Spec.Ports[0].NodePort != 30080 || lb.Spec.Service != "default/web" {
		t.Fatalf("backend got %+v", lb)
	}
	if _, exists, err := ccm.GetLoadBalancer(ctx, "c", service()); err != nil || !exists {
		t.Fatalf("exists=%v err=%v", exists, err)
	}
	if err := ccm.EnsureLoadBalancerDeleted(ctx, "c", service()); err != nil {
		t.Fatal(err)
	}
	if err := ccm.EnsureLoadBalancerDeleted(ctx, "c", service()); err != nil {
		t.Fatalf("deleting twice must be fine: %v", err)
	}
	if _, exists, _ := ccm.GetLoadBalancer(ctx, "c", service()); exists || len(r.fakes.deleted) != 1 {
		t.Fatalf("after delete: exists=%v deleted=%v", exists, r.fakes.deleted)
	}
	// The service controller's node sync may update a Service it is
	// deleting: that must fail, not bring the load balancer back (a leak).
	if err := ccm.UpdateLoadBalancer(ctx, "c", service(), []*v1.Node{readyNode("172.18.0.4")}); !api.IsNotFound(err) {
		t.Fatalf("updating a deleted load balancer: %v, want not found", err)
	}
	if _, exists, _ := ccm.GetLoadBalancer(ctx, "c", service()); exists {
		t.Fatal("UpdateLoadBalancer created a load balancer")
	}
	noNodePort := service()
	noNodePort.Spec.Ports[0].NodePort = 0
	if _, err := ccm.EnsureLoadBalancer(ctx, "c", noNodePort, nil); err == nil {
		t.Fatal("want an error for a port without node port")
	}
}

func TestRoutes(t *testing.T) {
	r := newRig(t, t.TempDir())
	kcm := r.cloud("kube-controller-manager")
	ctx := context.Background()
	route := &cloudprovider.Route{TargetNode: "c-worker", DestinationCIDR: "10.244.1.0/24"}
	if err := kcm.CreateRoute(ctx, "c", "hint1", route); err != nil {
		t.Fatal(err)
	}
	if len(r.fakes.routes) != 1 || r.fakes.routes[0].TargetInstance != "c-worker" {
		t.Fatalf("programmed %+v", r.fakes.routes)
	}
	other := &cloudprovider.Route{TargetNode: "c-worker2", DestinationCIDR: "10.244.9.0/24"}
	if err := kcm.CreateRoute(ctx, "other", "h", other); err != nil {
		t.Fatal(err)
	}
	list, err := kcm.ListRoutes(ctx, "c")
	if err != nil || len(list) != 1 || list[0].Name != "c-hint1" {
		t.Fatalf("routes of cluster c: %+v %v", list, err)
	}
	if err := kcm.DeleteRoute(ctx, "c", list[0]); err != nil {
		t.Fatal(err)
	}
	if len(r.fakes.routes) != 1 {
		t.Fatalf("after delete, programmed %+v", r.fakes.routes)
	}
	bad := &cloudprovider.Route{TargetNode: "c-worker", DestinationCIDR: "not-a-cidr"}
	var se *api.StatusError
	if err := kcm.CreateRoute(ctx, "c", "bad", bad); !errors.As(err, &se) || se.Code != http.StatusBadRequest {
		t.Fatalf("bad CIDR: %v", err)
	}
}

func TestFaultKnobs(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	admin := r.admin()
	ccm := r.cloud("cloud-controller-manager")
	code := func(err error) int {
		var se *api.StatusError
		if errors.As(err, &se) {
			return se.Code
		}
		return 0
	}

	if err := admin.SetFaults(ctx, api.Faults{ErrorRate: map[string]float64{"EnsureLoadBalancer": 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ccm.EnsureLoadBalancer(ctx, "c", service(), nil); code(err) != http.StatusInternalServerError {
		t.Fatalf("error rate 1: %v", err)
	}
	if _, err := ccm.InstanceMetadata(ctx, node("c-worker")); err != nil {
		t.Fatalf("other operations must be unaffected: %v", err)
	}

	if err := admin.SetFaults(ctx, api.Faults{ThrottleQPS: 1}); err != nil {
		t.Fatal(err)
	}
	_, first := ccm.InstanceMetadata(ctx, node("c-worker"))
	_, second := ccm.InstanceMetadata(ctx, node("c-worker"))
	if first != nil || code(second) != http.StatusTooManyRequests {
		t.Fatalf("throttle at 1 QPS with a frozen clock: first %v, second %v", first, second)
	}
	kcm := r.cloud("kube-controller-manager")
	if _, err := kcm.InstanceMetadata(ctx, node("c-worker")); err != nil {
		t.Fatalf("throttling is per caller: %v", err)
	}
	for _, n := range []string{"c-worker", "c-worker2"} {
		kubelet := r.client("kubelet")
		kubelet.Node = n
		if _, err := kubelet.Instance(ctx, "kubelet", n); err != nil {
			t.Fatalf("each kubelet is a caller of its own: %s: %v", n, err)
		}
	}
	fabric := r.client("handover-cni")
	for range 3 {
		if _, err := fabric.Routes(ctx, ""); err != nil {
			t.Fatalf("handover's own callers are not the account's: %v", err)
		}
	}

	window := api.Window{Start: r.now.Add(-time.Minute), End: r.now.Add(time.Minute)}
	if err := admin.SetFaults(ctx, api.Faults{Outages: []api.Window{window}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ccm.InstanceMetadata(ctx, node("c-worker")); code(err) != http.StatusServiceUnavailable {
		t.Fatalf("outage: %v", err)
	}
	r.now = r.now.Add(2 * time.Minute)
	if _, err := ccm.InstanceMetadata(ctx, node("c-worker")); err != nil {
		t.Fatalf("after the outage window: %v", err)
	}

	if err := admin.SetFaults(ctx, api.Faults{ErrorRate: map[string]float64{"*": 2}}); code(err) != http.StatusBadRequest {
		t.Fatalf("error rate 2 must be refused: %v", err)
	}
	if err := admin.SetFaults(ctx, api.Faults{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ccm.EnsureLoadBalancer(ctx, "c", service(), nil); err != nil {
		t.Fatalf("cleared knobs: %v", err)
	}
	faulted := 0
	for _, e := range r.server.audit.since(time.Time{}) {
		if e.Fault != "" {
			faulted++
		}
	}
	if faulted != 3 {
		t.Fatalf("want 3 audited injected faults, got %d", faulted)
	}
}

func TestStateSurvivesRestartAndAuditIsJSONL(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, dir)
	ctx := context.Background()
	ccm := r.cloud("cloud-controller-manager")
	if _, err := ccm.EnsureLoadBalancer(ctx, "c", service(), nil); err != nil {
		t.Fatal(err)
	}
	if err := r.admin().SetFaults(ctx, api.Faults{Latency: api.Duration{Duration: time.Millisecond}}); err != nil {
		t.Fatal(err)
	}
	if err := r.admin().TerminateInstance(ctx, "c-worker2"); err != nil {
		t.Fatal(err)
	}
	r.server.Close()

	again := newRig(t, dir)
	lbs, err := again.client("x").LoadBalancers(ctx, "")
	if err != nil || len(lbs) != 1 || lbs[0].IP != "172.18.100.1" {
		t.Fatalf("load balancers after restart: %+v %v", lbs, err)
	}
	if f, _ := again.admin().Faults(ctx); f.Latency.Duration != time.Millisecond {
		t.Fatalf("faults after restart: %+v", f)
	}
	if _, err := again.client("x").Instance(ctx, "", "c-worker2"); !api.IsNotFound(err) {
		t.Fatalf("terminated instance came back: %v", err)
	}

	f, err := os.Open(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := 0
	for sc := bufio.NewScanner(f); sc.Scan(); lines++ {
		var e api.AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Operation == "" {
			t.Fatalf("audit line %d: %q %v", lines+1, sc.Text(), err)
		}
	}
	if lines < 4 {
		t.Fatalf("audit has %d lines", lines)
	}
}

func TestCorruptStateIsAClearError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{StatePath: path}); err == nil {
		t.Fatal("want an error for corrupt state")
	}
}

// Deny refuses a caller's listed operations with 403, as a cloud refuses
// credentials without the permission, and records it; other callers and
// operations go on.
func TestDenyRefusesACallersOperations(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	admin := r.admin()
	if err := admin.SetFaults(ctx, api.Faults{Deny: map[string][]string{"cloud-controller-manager": {"CreateRoute"}}}); err != nil {
		t.Fatal(err)
	}
	rt := api.Route{Name: "c-worker", DestinationCIDR: "10.244.1.0/24", TargetInstance: "c-worker"}
	var se *api.StatusError
	if err := r.client("cloud-controller-manager").CreateRoute(ctx, "route", rt); !errors.As(err, &se) || se.Code != http.StatusForbidden {
		t.Fatalf("the CCM's CreateRoute: %v, want 403", err)
	}
	if _, err := r.cloud("cloud-controller-manager").InstanceMetadata(ctx, node("c-worker")); err != nil {
		t.Fatalf("an operation not denied: %v", err)
	}
	if err := r.client("kube-controller-manager").CreateRoute(ctx, "route", rt); err != nil {
		t.Fatalf("another caller's CreateRoute: %v", err)
	}
	denied := 0
	for _, e := range r.server.audit.since(time.Time{}) {
		if e.Fault == "deny" && e.Status == http.StatusForbidden && e.Operation == "CreateRoute" && e.Component == "cloud-controller-manager" {
			denied++
		}
	}
	if denied != 1 {
		t.Fatalf("audited denials: %d, want 1", denied)
	}
	if err := admin.SetFaults(ctx, api.Faults{Deny: map[string][]string{"cloud-controller-manager": {}}}); !errors.As(err, &se) || se.Code != http.StatusBadRequest {
		t.Fatalf("a deny without operations: %v, want 400", err)
	}
}

// Scope limits a caller's view to one zone or region: an instance
// elsewhere is not found and not listed, routes to it are refused the same
// way, the audit names the knob, and other callers see everything.
func TestScopeHidesInstancesElsewhere(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	admin, ccm := r.admin(), r.client("cloud-controller-manager")
	if err := admin.SetFaults(ctx, api.Faults{Scope: map[string]string{"cloud-controller-manager": "zone-a"}}); err != nil {
		t.Fatal(err)
	}
	all, err := ccm.Instances(ctx, "")
	if err != nil || len(all) != 1 || all[0].Name != "c-worker" {
		t.Fatalf("the CCM lists %v (%v), want c-worker of zone-a only", all, err)
	}
	var se *api.StatusError
	if _, err := ccm.Instance(ctx, "", "c-worker2"); !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Fatalf("the CCM's look-up of c-worker2 in zone-b: %v, want 404", err)
	}
	if _, err := ccm.InstanceByProviderID(ctx, "", "kind://docker/c/c-worker2"); !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Fatalf("by ProviderID: %v, want 404", err)
	}
	rt := api.Route{Name: "c-worker2", DestinationCIDR: "10.244.2.0/24", TargetInstance: "c-worker2"}
	if err := ccm.CreateRoute(ctx, "route", rt); !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Fatalf("a route to c-worker2: %v, want 404", err)
	}
	if _, err := r.client("kube-controller-manager").Instance(ctx, "", "c-worker2"); err != nil {
		t.Fatalf("another caller: %v", err)
	}
	scoped := 0
	for _, e := range r.server.audit.since(time.Time{}) {
		if e.Fault == "scope" && e.Status == http.StatusNotFound && e.Component == "cloud-controller-manager" {
			scoped++
		}
	}
	if scoped != 3 {
		t.Fatalf("audited out-of-scope answers: %d, want 3", scoped)
	}
	if err := admin.SetFaults(ctx, api.Faults{Scope: map[string]string{"cloud-controller-manager": "region-1"}}); err != nil {
		t.Fatal(err)
	}
	if all, err := ccm.Instances(ctx, ""); err != nil || len(all) != 2 {
		t.Fatalf("scoped to the region: %v (%v), want both", all, err)
	}
	if err := admin.SetFaults(ctx, api.Faults{Scope: map[string]string{"cloud-controller-manager": ""}}); !errors.As(err, &se) || se.Code != http.StatusBadRequest {
		t.Fatalf("a scope naming nothing: %v, want 400", err)
	}
}
