package azure_test

import (
	"net/http"
	"strings"
	"testing"
)

const (
	group   = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/c/providers/"
	lbID    = group + "Microsoft.Network/loadBalancers/c"
	poolID  = lbID + "/backendAddressPools/c"
	pipPath = "Microsoft.Network/publicIPAddresses/c-a0123"
)

// lbBody is a standard load balancer with a pool, a probe, and a frontend
// on the public IP pip (none when nil) with a rule, as the providers PUT.
func lbBody(pip *string) map[string]any {
	p := map[string]any{
		"backendAddressPools": []any{map[string]any{"name": "c", "id": poolID}},
		"probes":              []any{map[string]any{"name": "a0123-TCP-80", "id": lbID + "/probes/a0123-TCP-80", "properties": map[string]any{"protocol": "Tcp", "port": 30080}}},
	}
	if pip != nil {
		fe := lbID + "/frontendIPConfigurations/a0123"
		p["frontendIPConfigurations"] = []any{map[string]any{"name": "a0123", "id": fe, "properties": map[string]any{"publicIPAddress": map[string]any{"id": *pip}}}}
		p["loadBalancingRules"] = []any{map[string]any{"name": "a0123-TCP-80", "properties": map[string]any{
			"frontendIPConfiguration": map[string]any{"id": fe}, "backendAddressPool": map[string]any{"id": poolID},
			"probe": map[string]any{"id": lbID + "/probes/a0123-TCP-80"}, "protocol": "Tcp", "frontendPort": 80, "backendPort": 80, "enableFloatingIP": true}}}
	}
	return map[string]any{"location": location, "sku": map[string]any{"name": "Standard"}, "properties": p}
}

func nicBody(pools ...string) map[string]any {
	var refs []any
	for _, p := range pools {
		refs = append(refs, map[string]any{"id": p})
	}
	return map[string]any{"location": location, "properties": map[string]any{"ipConfigurations": []any{map[string]any{
		"name": "ipconfig1", "properties": map[string]any{"privateIPAddress": "127.0.0.1", "loadBalancerBackendAddressPools": refs}}}}}
}

// A service's load balancer as the providers make it: a public IP, the
// load balancer on it (If-Match on update), the nodes' interfaces in its
// pool; then taken apart.
func TestLoadBalancersPublicIPsAndPools(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	pip := r.arm(t, tok, http.MethodPut, pipPath, "2022-07-01", nil, map[string]any{"location": location,
		"sku": map[string]any{"name": "Standard"}, "properties": map[string]any{"publicIPAllocationMethod": "Static"}})
	addr, _ := pip.body["properties"].(map[string]any)["ipAddress"].(string)
	if pip.status != http.StatusCreated || addr == "" || pip.header.Get("Azure-AsyncOperation") != "" {
		t.Fatalf("PUT the public IP: %d %s", pip.status, pip.raw)
	}
	if carrier, ok := r.back.lb("c-a0123"); !ok || carrier.IP != addr {
		t.Fatalf("the public IP's address %s is not its load balancer's in the cloud: %+v", addr, carrier)
	}
	pipID := pip.body["id"].(string)
	missing := group + "Microsoft.Network/publicIPAddresses/none"
	if bad := r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, lbBody(&missing)); bad.code() != "InvalidResourceReference" {
		t.Errorf("a frontend on a public IP that does not exist: %d %s", bad.status, bad.raw)
	}
	lb := r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, lbBody(&pipID))
	if lb.status != http.StatusCreated || lb.body["etag"] == nil || !strings.Contains(string(lb.raw), `"provisioningState":"Succeeded"`) {
		t.Fatalf("PUT the load balancer: %d %s", lb.status, lb.raw)
	}
	if stale := r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", map[string]string{"If-Match": `W/"00000000-0000-0000-0000-000000000000"`}, lbBody(&pipID)); stale.status != http.StatusPreconditionFailed {
		t.Errorf("a stale etag: %d %s", stale.status, stale.raw)
	}
	if ok := r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", map[string]string{"If-Match": lb.body["etag"].(string)}, lbBody(&pipID)); ok.status != http.StatusOK {
		t.Errorf("the current etag: %d %s", ok.status, ok.raw)
	}
	if bad := r.arm(t, tok, http.MethodPut, "Microsoft.Network/networkInterfaces/c-local-nic", "2022-07-01", nil, nicBody(lbID+"/backendAddressPools/none")); bad.code() != "InvalidResourceReference" {
		t.Errorf("an interface in a pool that does not exist: %d %s", bad.status, bad.raw)
	}
	if nic := r.arm(t, tok, http.MethodPut, "Microsoft.Network/networkInterfaces/c-local-nic", "2022-07-01", nil, nicBody(poolID)); nic.status != http.StatusOK {
		t.Fatalf("PUT the interface: %d %s", nic.status, nic.raw)
	}
	got := r.arm(t, tok, http.MethodGet, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, nil)
	if !strings.Contains(string(got.raw), `networkInterfaces/c-local-nic/ipConfigurations/ipconfig1`) {
		t.Errorf("the pool does not show the interface: %s", got.raw)
	}
	md := do(t, http.MethodGet, r.imdsAt+"/metadata/loadbalancer?api-version=2020-10-01", map[string]string{"Metadata": "true"}, nil)
	if !strings.Contains(string(md.raw), `"frontendIpAddress":"`+addr+`"`) {
		t.Errorf("the metadata service's load balancers: %s", md.raw)
	}
	if inUse := r.arm(t, tok, http.MethodDelete, pipPath, "2022-07-01", nil, nil); inUse.code() != "PublicIPAddressCannotBeDeleted" {
		t.Errorf("deleting a public IP in use: %d %s", inUse.status, inUse.raw)
	}
	if del := r.arm(t, tok, http.MethodDelete, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, nil); del.status != http.StatusOK {
		t.Errorf("DELETE: %d %s", del.status, del.raw)
	}
	if del := r.arm(t, tok, http.MethodDelete, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, nil); del.status != http.StatusNoContent {
		t.Errorf("DELETE again: %d %s", del.status, del.raw)
	}
	nic := r.arm(t, tok, http.MethodGet, "Microsoft.Network/networkInterfaces/c-local-nic", "2022-07-01", nil, nil)
	if strings.Contains(string(nic.raw), "backendAddressPools/c") {
		t.Errorf("the interface is still in the deleted pool: %s", nic.raw)
	}
	if del := r.arm(t, tok, http.MethodDelete, pipPath, "2022-07-01", nil, nil); del.status != http.StatusOK {
		t.Errorf("deleting the public IP: %d %s", del.status, del.raw)
	}
}

// The cluster's security group exists before any PUT; a PUT with its
// etag replaces it, a stale one is refused.
func TestTheSecurityGroup(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	nsg := r.arm(t, tok, http.MethodGet, "Microsoft.Network/networkSecurityGroups/c-nsg", "2019-06-01", nil, nil)
	if nsg.status != http.StatusOK {
		t.Fatalf("GET: %d %s", nsg.status, nsg.raw)
	}
	rules := map[string]any{"location": location, "properties": map[string]any{"securityRules": []any{map[string]any{"name": "k8s-azure-lb_allow_IPv4_0123",
		"properties": map[string]any{"priority": 500, "access": "Allow", "direction": "Inbound", "protocol": "Tcp"}}}}}
	put := r.arm(t, tok, http.MethodPut, "Microsoft.Network/networkSecurityGroups/c-nsg", "2019-06-01", map[string]string{"If-Match": nsg.body["etag"].(string)}, rules)
	if put.status != http.StatusOK || put.body["etag"] == nsg.body["etag"] {
		t.Fatalf("PUT: %d %s", put.status, put.raw)
	}
	if stale := r.arm(t, tok, http.MethodPut, "Microsoft.Network/networkSecurityGroups/c-nsg", "2019-06-01", map[string]string{"If-Match": nsg.body["etag"].(string)}, rules); stale.status != http.StatusPreconditionFailed {
		t.Errorf("a stale etag: %d %s", stale.status, stale.raw)
	}
	if other := r.arm(t, tok, http.MethodGet, "Microsoft.Network/networkSecurityGroups/other", "2019-06-01", nil, nil); other.status != http.StatusNotFound {
		t.Errorf("another group: %d %s", other.status, other.raw)
	}
}

// ARM takes no new Basic public IP: one of the Basic SKU, or of none (a
// PUT without a sku is Basic), is refused as ARM refuses it, and the cloud
// makes no load balancer for it; a Standard one is made.
func TestBasicPublicIPsAreRefused(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	for name, sku := range map[string]map[string]any{"no sku": nil, "basic": {"name": "Basic"}, "basic, lower case": {"name": "basic"}} {
		body := map[string]any{"location": location, "properties": map[string]any{"publicIPAllocationMethod": "Static"}}
		if sku != nil {
			body["sku"] = sku
		}
		got := r.arm(t, tok, http.MethodPut, pipPath, "2022-07-01", nil, body)
		if got.status != http.StatusBadRequest || got.code() != "IPv4BasicSkuPublicIpCountLimitReached" ||
			!strings.Contains(string(got.raw), "Cannot create more than 0 IPv4 Basic SKU public IP addresses for this subscription in this region.") {
			t.Errorf("%s: %d %s", name, got.status, got.raw)
		}
		if _, ok := r.back.lb("c-a0123"); ok {
			t.Errorf("%s: the cloud made a load balancer for a refused public IP", name)
		}
	}
	if ok := r.arm(t, tok, http.MethodPut, pipPath, "2022-07-01", nil, map[string]any{"location": location,
		"sku": map[string]any{"name": "Standard"}, "properties": map[string]any{"publicIPAllocationMethod": "Static"}}); ok.status != http.StatusCreated {
		t.Errorf("a Standard public IP: %d %s", ok.status, ok.raw)
	}
}
