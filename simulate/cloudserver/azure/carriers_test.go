package azure_test

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// pipBody is a public IP as cloud-provider-azure makes one for a Service:
// Standard, static, tagged with the Service.
func pipBody(tags map[string]any) map[string]any {
	return map[string]any{"location": location, "sku": map[string]any{"name": "Standard"}, "tags": tags,
		"properties": map[string]any{"publicIPAllocationMethod": "Static"}}
}

// putPIP makes the public IP of pipPath and returns its ID and address.
func (r *rig) putPIP(t *testing.T, tok string) (id, addr string) {
	t.Helper()
	pip := r.arm(t, tok, http.MethodPut, pipPath, "2022-07-01", nil, pipBody(map[string]any{"k8s-azure-service": "load/web"}))
	if pip.status != http.StatusCreated {
		t.Fatalf("PUT the public IP: %d %s", pip.status, pip.raw)
	}
	addr, _ = pip.body["properties"].(map[string]any)["ipAddress"].(string)
	return pip.body["id"].(string), addr
}

// carrier is the cloud's load balancer behind the public IP of pipPath.
func (r *rig) carrier(t *testing.T) api.LoadBalancer {
	t.Helper()
	lb, ok := r.back.lb("c-a0123")
	if !ok {
		t.Fatal("the cloud has no load balancer for the public IP")
	}
	return lb
}

// audited: the cloud's audit has op on resource by the cloud-controller-
// manager, answered with status, made for ARM's action.
func (r *rig) audited(t *testing.T, op, resource, action string, status int) bool {
	t.Helper()
	entries, err := r.admin().Audit(context.Background(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Operation == op && e.Resource == resource && e.Controller == action && e.Component == "cloud-controller-manager" && e.Status == status {
			return true
		}
	}
	return false
}

// A public IP is a load balancer of the cloud, made by its PUT as the
// caller: its address is that load balancer's, it forwards nothing while
// no rule uses it, an update keeps both, and its DELETE deletes it.
func TestAPublicIPIsALoadBalancerOfTheCloud(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	_, addr := r.putPIP(t, tok)
	lb := r.carrier(t)
	if lb.IP != addr || len(lb.Spec.Ports) != 0 || lb.Spec.Service != "load/web" || lb.Spec.Group != "" {
		t.Fatalf("public IP at %s; the cloud's load balancer %+v", addr, lb)
	}
	if !r.audited(t, "EnsureLoadBalancer", "c-a0123", "Microsoft.Network/publicIPAddresses/write", http.StatusOK) {
		t.Error("the cloud's audit has no EnsureLoadBalancer by the cloud-controller-manager")
	}
	again := r.arm(t, tok, http.MethodPut, pipPath, "2022-07-01", nil, pipBody(map[string]any{"service": "load/other,load/web"}))
	if got, _ := again.body["properties"].(map[string]any)["ipAddress"].(string); again.status != http.StatusOK || got != addr {
		t.Fatalf("PUT again: %d %s", again.status, again.raw)
	}
	if lb := r.carrier(t); lb.IP != addr || lb.Spec.Service != "load/other" || r.back.count() != 1 {
		t.Errorf("after an update (the in-tree provider's service tag): %+v, %d load balancers", lb, r.back.count())
	}
	if del := r.arm(t, tok, http.MethodDelete, pipPath, "2022-07-01", nil, nil); del.status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", del.status, del.raw)
	}
	if _, ok := r.back.lb("c-a0123"); ok || !r.audited(t, "DeleteLoadBalancer", "c-a0123", "Microsoft.Network/publicIPAddresses/delete", http.StatusNoContent) {
		t.Error("the public IP's load balancer outlived it")
	}
}

// A frontend's rules give its public IP's load balancer ports, the
// interfaces joining and leaving their pool its nodes; taking the
// frontend away or deleting the load balancer leaves the address
// forwarding nothing.
func TestRulesAndPoolsDecideWhatIsCarried(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	pipID, addr := r.putPIP(t, tok)
	if lb := r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, lbBody(&pipID)); lb.status != http.StatusCreated {
		t.Fatalf("PUT the load balancer: %d %s", lb.status, lb.raw)
	}
	want := []api.Port{{Name: "a0123-TCP-80", Protocol: "TCP", Port: 80, NodePort: 30080}}
	if lb := r.carrier(t); !reflect.DeepEqual(lb.Spec.Ports, want) || lb.Spec.Group != "c" || len(lb.Spec.Nodes) != 0 || lb.IP != addr {
		t.Fatalf("with a rule: %+v", lb)
	}
	nodes := func(nic string, pools ...string) []string {
		t.Helper()
		if a := r.arm(t, tok, http.MethodPut, "Microsoft.Network/networkInterfaces/"+nic, "2022-07-01", nil, nicBody(pools...)); a.status != http.StatusOK {
			t.Fatalf("PUT %s: %d %s", nic, a.status, a.raw)
		}
		return r.carrier(t).Spec.Nodes
	}
	if got := nodes("c-worker-nic", poolID); !reflect.DeepEqual(got, []string{"172.18.0.3"}) {
		t.Errorf("the worker joined: %v", got)
	}
	if got := nodes("c-local-nic", poolID); !reflect.DeepEqual(got, []string{"127.0.0.1", "172.18.0.3"}) {
		t.Errorf("c-local joined: %v", got)
	}
	if got := nodes("c-worker-nic"); !reflect.DeepEqual(got, []string{"127.0.0.1"}) {
		t.Errorf("the worker left: %v", got)
	}
	if !r.audited(t, "UpdateLoadBalancer", "c-a0123", "Microsoft.Network/networkInterfaces/write", http.StatusOK) {
		t.Error("the cloud's audit has no UpdateLoadBalancer by the cloud-controller-manager for an interface's PUT")
	}
	if a := r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, lbBody(nil)); a.status != http.StatusOK {
		t.Fatalf("PUT without the frontend: %d %s", a.status, a.raw)
	}
	if lb := r.carrier(t); len(lb.Spec.Ports) != 0 || lb.Spec.Group != "" || len(lb.Spec.Nodes) != 0 || lb.IP != addr {
		t.Errorf("without the frontend: %+v", lb)
	}
	r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, lbBody(&pipID))
	if a := r.arm(t, tok, http.MethodDelete, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, nil); a.status != http.StatusOK {
		t.Fatalf("DELETE the load balancer: %d %s", a.status, a.raw)
	}
	if lb := r.carrier(t); len(lb.Spec.Ports) != 0 || lb.IP != addr {
		t.Errorf("after the load balancer's DELETE: %+v", lb)
	}
}

// The port on the nodes a rule is relayed to: the probe's under a floating
// IP (the Service's nodePort, as both providers probe), the backendPort
// without; a rule whose probe is kube-proxy's health check, or that has
// none, or that takes every port, is not carried.
func TestTheNodePortOfARule(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	pipID, _ := r.putPIP(t, tok)
	for _, tc := range []struct {
		name   string
		change func(rule, probe map[string]any)
		want   int32 // 0: not carried
	}{
		{"floating IP, TCP probe", func(_, _ map[string]any) {}, 30080},
		{"no floating IP", func(rule, _ map[string]any) { rule["enableFloatingIP"] = false; rule["backendPort"] = 31000 }, 31000},
		{"HTTP probe of the Service", func(_, probe map[string]any) { probe["protocol"] = "Http"; probe["requestPath"] = "/" }, 30080},
		{"kube-proxy's health check", func(_, probe map[string]any) {
			probe["protocol"], probe["requestPath"], probe["port"] = "Http", "/healthz", 32123
		}, 0},
		{"no probe", func(rule, _ map[string]any) { delete(rule, "probe") }, 0},
		{"high-availability ports", func(rule, _ map[string]any) {
			rule["protocol"], rule["frontendPort"], rule["backendPort"] = "All", 0, 0
		}, 0},
	} {
		body := lbBody(&pipID)
		p := body["properties"].(map[string]any)
		rule := p["loadBalancingRules"].([]any)[0].(map[string]any)["properties"].(map[string]any)
		probe := p["probes"].([]any)[0].(map[string]any)["properties"].(map[string]any)
		tc.change(rule, probe)
		if a := r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, body); a.status >= 300 {
			t.Fatalf("%s: PUT: %d %s", tc.name, a.status, a.raw)
		}
		ports := r.carrier(t).Spec.Ports
		switch {
		case tc.want == 0 && len(ports) != 0:
			t.Errorf("%s: carried as %+v", tc.name, ports)
		case tc.want != 0 && (len(ports) != 1 || ports[0].NodePort != tc.want || ports[0].Port != 80):
			t.Errorf("%s: carried as %+v, want 80 -> %d", tc.name, ports, tc.want)
		}
	}
}

// A pool's own backend addresses (the nodeIP pool type) are nodes too.
func TestAPoolsOwnAddressesAreNodes(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	pipID, _ := r.putPIP(t, tok)
	body := lbBody(&pipID)
	pool := body["properties"].(map[string]any)["backendAddressPools"].([]any)[0].(map[string]any)
	pool["properties"] = map[string]any{"loadBalancerBackendAddresses": []any{
		map[string]any{"name": "c-control-plane", "properties": map[string]any{"ipAddress": "172.18.0.2"}}}}
	if a := r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, body); a.status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", a.status, a.raw)
	}
	if got := r.carrier(t).Spec.Nodes; !reflect.DeepEqual(got, []string{"172.18.0.2"}) {
		t.Errorf("nodes %v", got)
	}
}

// The cloud's refusal of a carrier's change is the write's ARM error, and
// the write changes nothing: not ARM's resource, not the cloud.
func TestACloudRefusalIsTheWritesARMError(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	ctx := context.Background()
	faults := func(f api.Faults) {
		t.Helper()
		if err := r.admin().SetFaults(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	faults(api.Faults{Deny: map[string][]string{"cloud-controller-manager": {"EnsureLoadBalancer"}}})
	if a := r.arm(t, tok, http.MethodPut, pipPath, "2022-07-01", nil, pipBody(nil)); a.code() != "AuthorizationFailed" {
		t.Errorf("a public IP the cloud refuses: %d %s", a.status, a.raw)
	}
	if a := r.arm(t, tok, http.MethodGet, pipPath, "2022-07-01", nil, nil); a.status != http.StatusNotFound || r.back.count() != 0 {
		t.Errorf("after the refusal: %d %s, %d load balancers", a.status, a.raw, r.back.count())
	}
	faults(api.Faults{})
	pipID, _ := r.putPIP(t, tok)
	faults(api.Faults{ErrorRate: map[string]float64{"UpdateLoadBalancer": 1}})
	if a := r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, lbBody(&pipID)); a.status != http.StatusInternalServerError || a.code() != "InternalServerError" {
		t.Errorf("a load balancer the cloud refuses: %d %s", a.status, a.raw)
	}
	if a := r.arm(t, tok, http.MethodGet, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, nil); a.status != http.StatusNotFound || len(r.carrier(t).Spec.Ports) != 0 {
		t.Errorf("after the refusal: %d %s; carried %+v", a.status, a.raw, r.carrier(t).Spec)
	}
	faults(api.Faults{})
	r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, lbBody(&pipID))
	faults(api.Faults{Outages: []api.Window{{Start: time.Now().Add(-time.Hour), End: time.Now().Add(time.Hour)}}})
	if a := r.arm(t, tok, http.MethodPut, "Microsoft.Network/networkInterfaces/c-worker-nic", "2022-07-01", nil, nicBody(poolID)); a.status != http.StatusServiceUnavailable {
		t.Errorf("an interface joining during an outage: %d %s", a.status, a.raw)
	}
	faults(api.Faults{Deny: map[string][]string{"cloud-controller-manager": {"UpdateLoadBalancer"}}})
	if a := r.arm(t, tok, http.MethodPut, "Microsoft.Network/networkInterfaces/c-worker-nic", "2022-07-01", nil, nicBody(poolID)); a.code() != "AuthorizationFailed" {
		t.Errorf("an interface joining, refused: %d %s", a.status, a.raw)
	}
	nic := r.arm(t, tok, http.MethodGet, "Microsoft.Network/networkInterfaces/c-worker-nic", "2022-07-01", nil, nil)
	if strings.Contains(string(nic.raw), "backendAddressPools/c") || len(r.carrier(t).Spec.Nodes) != 0 {
		t.Errorf("after the refusal the interface is in the pool: %s; carried %+v", nic.raw, r.carrier(t).Spec)
	}
	faults(api.Faults{Deny: map[string][]string{"cloud-controller-manager": {"DeleteLoadBalancer"}}})
	r.arm(t, tok, http.MethodDelete, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, nil)
	if a := r.arm(t, tok, http.MethodDelete, pipPath, "2022-07-01", nil, nil); a.code() != "AuthorizationFailed" {
		t.Errorf("deleting a public IP, refused: %d %s", a.status, a.raw)
	}
	if a := r.arm(t, tok, http.MethodGet, pipPath, "2022-07-01", nil, nil); a.status != http.StatusOK || r.back.count() != 1 {
		t.Errorf("after the refusal: %d %s, %d load balancers", a.status, a.raw, r.back.count())
	}
}

// A write that changes two public IPs' load balancers, of which the cloud
// takes the first and refuses the second, leaves the first as it was.
func TestAHalfTakenWriteIsPutBack(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	pipA, _ := r.putPIP(t, tok)
	second := r.arm(t, tok, http.MethodPut, "Microsoft.Network/publicIPAddresses/c-b4567", "2022-07-01", nil, pipBody(map[string]any{"k8s-azure-service": "load/other"}))
	if second.status != http.StatusCreated {
		t.Fatalf("PUT the second public IP: %d %s", second.status, second.raw)
	}
	body := lbBody(&pipA)
	p := body["properties"].(map[string]any)
	feB := lbID + "/frontendIPConfigurations/b4567"
	p["frontendIPConfigurations"] = append(p["frontendIPConfigurations"].([]any), map[string]any{"name": "b4567", "id": feB,
		"properties": map[string]any{"publicIPAddress": map[string]any{"id": second.body["id"]}}})
	p["loadBalancingRules"] = append(p["loadBalancingRules"].([]any), map[string]any{"name": "b4567-TCP-80", "properties": map[string]any{
		"frontendIPConfiguration": map[string]any{"id": feB}, "backendAddressPool": map[string]any{"id": poolID},
		"probe": map[string]any{"id": lbID + "/probes/a0123-TCP-80"}, "protocol": "Tcp", "frontendPort": 80, "backendPort": 80, "enableFloatingIP": true}})
	if a := r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, body); a.status != http.StatusCreated {
		t.Fatalf("PUT the load balancer: %d %s", a.status, a.raw)
	}
	r.back.mu.Lock()
	r.back.failing = "c-b4567"
	r.back.mu.Unlock()
	if a := r.arm(t, tok, http.MethodPut, "Microsoft.Network/networkInterfaces/c-worker-nic", "2022-07-01", nil, nicBody(poolID)); a.status != http.StatusInternalServerError {
		t.Errorf("an interface joining, half refused: %d %s", a.status, a.raw)
	}
	if lb := r.carrier(t); len(lb.Spec.Nodes) != 0 || len(lb.Spec.Ports) != 1 {
		t.Errorf("the first public IP's load balancer kept the half-taken write: %+v", lb.Spec)
	}
}
