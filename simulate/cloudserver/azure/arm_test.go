package azure_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/azure"
)

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// ARM takes a call only with a token the metadata service issued, for
// ARM, live, of a VM that still exists.
func TestARMRefusesWithoutAValidToken(t *testing.T) {
	r := newRig(t, t.TempDir())
	vm := r.armAt + "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/c/providers/Microsoft.Compute/virtualMachines/c-worker?api-version=2022-03-01"
	tok := r.token(t, "")
	wrongAudience := do(t, http.MethodGet, r.imdsAt+"/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https%3A%2F%2Fvault.azure.net", map[string]string{"Metadata": "true"}, nil)
	for name, c := range map[string]struct {
		header map[string]string
		code   string
	}{
		"no Authorization":   {nil, "AuthenticationFailed"},
		"not a bearer token": {map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, "AuthenticationFailedInvalidHeader"},
		"a forged token":     {map[string]string{"Authorization": "Bearer " + tok[:len(tok)-4] + "AAAA"}, "InvalidAuthenticationToken"},
		"another audience":   {map[string]string{"Authorization": "Bearer " + wrongAudience.body["access_token"].(string)}, "InvalidAuthenticationTokenAudience"},
	} {
		if a := do(t, http.MethodGet, vm, c.header, nil); a.status != http.StatusUnauthorized || a.code() != c.code {
			t.Errorf("%s: %d %s, want 401 %s", name, a.status, a.raw, c.code)
		}
	}
	r.advance(25 * time.Hour)
	if a := do(t, http.MethodGet, vm, map[string]string{"Authorization": "Bearer " + tok}, nil); a.code() != "ExpiredAuthenticationToken" {
		t.Errorf("an expired token: %d %s", a.status, a.raw)
	}
}

// A VM's token ends with the VM.
func TestATerminatedNodesTokenIsRefused(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, "")
	if err := r.admin().TerminateInstance(context.Background(), "c-local"); err != nil {
		t.Fatal(err)
	}
	if a := r.arm(t, tok, http.MethodGet, "Microsoft.Compute/virtualMachines", "2022-03-01", nil, nil); a.code() != "InvalidAuthenticationToken" {
		t.Errorf("a terminated VM's token: %d %s", a.status, a.raw)
	}
}

// ARM's refusals of what a call names: the api-version, the subscription,
// the resource group, the type, the body.
func TestARMRefusesWhatItDoesNotServe(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	rg := "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/"
	for name, c := range map[string]struct {
		method, path, version string
		body                  any
		status                int
		code                  string
		unimplemented         bool
	}{
		"no api-version":           {http.MethodGet, "Microsoft.Network/loadBalancers", "", nil, 400, "MissingApiVersionParameter", false},
		"a version it lacks":       {http.MethodGet, "Microsoft.Network/loadBalancers", "2015-05-01-preview", nil, 400, "NoRegisteredProviderFound", true},
		"another subscription":     {http.MethodGet, "/subscriptions/0/resourceGroups/c/providers/Microsoft.Network/loadBalancers", "2022-07-01", nil, 404, "SubscriptionNotFound", false},
		"another resource group":   {http.MethodGet, rg + "other/providers/Microsoft.Network/loadBalancers", "2022-07-01", nil, 404, "ResourceGroupNotFound", false},
		"a type it does not serve": {http.MethodGet, "Microsoft.Network/applicationGateways", "2022-07-01", nil, 404, "InvalidResourceType", true},
		"a method it does not":     {http.MethodDelete, "Microsoft.Compute/virtualMachines/c-worker", "2022-03-01", nil, 405, "MethodNotAllowed", true},
		"a path outside ARM's":     {http.MethodGet, "/healthz", "2022-07-01", nil, 404, "NotFound", true},
		"a malformed body":         {http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", []byte("{not json"), 400, "InvalidRequestContent", false},
		"no location":              {http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", map[string]any{"properties": map[string]any{}}, 400, "LocationRequired", false},
		"an absent resource":       {http.MethodGet, "Microsoft.Network/loadBalancers/nope", "2022-07-01", nil, 404, "ResourceNotFound", false},
	} {
		path := c.path
		a := answer{}
		if c.version == "" {
			a = do(t, c.method, r.armAt+rg+"c/providers/"+path, map[string]string{"Authorization": "Bearer " + tok}, c.body)
		} else {
			a = r.arm(t, tok, c.method, path, c.version, nil, c.body)
		}
		if a.status != c.status || a.code() != c.code {
			t.Errorf("%s: %d %s, want %d %s", name, a.status, a.raw, c.status, c.code)
		}
		calls := r.calls()
		if last := calls[len(calls)-1]; last.Unimplemented != c.unimplemented || last.Code != c.code {
			t.Errorf("%s: the call log says %+v", name, last)
		}
	}
}

// VMs are the cloud's instances, with what the lifecycle controllers
// read; lists come in pages.
func TestVirtualMachinesAreTheInstances(t *testing.T) {
	r := newRig(t, t.TempDir(), func(o *azure.Options) { o.PageSize = 2 })
	tok := r.token(t, ccmClient)
	a := r.arm(t, tok, http.MethodGet, "Microsoft.Compute/virtualMachines/c-worker?$expand=instanceView", "2019-07-01", nil, nil)
	if a.status != http.StatusOK || a.body["id"] != r.network.VMID("c-worker") || !slices.Equal(asStrings(a.body["zones"]), []string{"2"}) {
		t.Fatalf("the worker: %d %s", a.status, a.raw)
	}
	view := a.body["properties"].(map[string]any)["instanceView"].(map[string]any)
	if !strings.Contains(string(mustJSON(t, view)), "PowerState/running") {
		t.Errorf("the instance view: %v", view)
	}
	nic := a.body["properties"].(map[string]any)["networkProfile"].(map[string]any)["networkInterfaces"].([]any)[0].(map[string]any)["id"].(string)
	n := r.arm(t, tok, http.MethodGet, strings.TrimPrefix(nic, "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/c/providers/"), "2019-06-01", nil, nil)
	cfg := n.body["properties"].(map[string]any)["ipConfigurations"].([]any)[0].(map[string]any)["properties"].(map[string]any)
	if n.status != http.StatusOK || cfg["privateIPAddress"] != "172.18.0.3" || n.header.Get("Azure-AsyncOperation") != "" {
		t.Errorf("the worker's interface: %d %s", n.status, n.raw)
	}
	if a := r.arm(t, tok, http.MethodGet, "Microsoft.Compute/virtualMachines/gone", "2022-03-01", nil, nil); a.status != http.StatusNotFound || a.code() != "ResourceNotFound" {
		t.Errorf("an absent VM: %d %s", a.status, a.raw)
	}
	var names []string
	page := r.arm(t, tok, http.MethodGet, "Microsoft.Compute/virtualMachines", "2022-03-01", nil, nil)
	for pages := 1; ; pages++ {
		for _, vm := range page.body["value"].([]any) {
			names = append(names, vm.(map[string]any)["name"].(string))
		}
		next, _ := page.body["nextLink"].(string)
		if next == "" {
			break
		}
		if pages > 3 || !strings.Contains(next, "api-version=2022-03-01") {
			t.Fatalf("page %d's nextLink %q", pages, next)
		}
		page = do(t, http.MethodGet, next, map[string]string{"Authorization": "Bearer " + tok}, nil)
	}
	if !slices.Equal(names, []string{"c-control-plane", "c-worker", "c-local"}) {
		t.Errorf("the pages list %v", names)
	}
}

func asStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

// The cloud's knobs hold ARM callers: a throttled one is told to come
// back (429, Retry-After), a denied one is refused as ARM refuses.
func TestTheCloudsKnobsReachARMCallers(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	ctx := context.Background()
	if err := r.admin().SetFaults(ctx, api.Faults{ThrottleQPS: 0.01}); err != nil {
		t.Fatal(err)
	}
	var throttled answer
	for range 3 {
		throttled = r.arm(t, tok, http.MethodGet, "Microsoft.Network/networkSecurityGroups/c-nsg", "2022-07-01", nil, nil)
	}
	if throttled.status != http.StatusTooManyRequests || throttled.header.Get("Retry-After") == "" || throttled.code() != "SubscriptionRequestsThrottled" {
		t.Errorf("throttled: %d %v %s", throttled.status, throttled.header, throttled.raw)
	}
	if err := r.admin().SetFaults(ctx, api.Faults{Deny: map[string][]string{"cloud-controller-manager": {"ListRoutes"}}}); err != nil {
		t.Fatal(err)
	}
	if a := r.arm(t, tok, http.MethodGet, "Microsoft.Network/routeTables/c-routetable", "2022-07-01", nil, nil); a.status != http.StatusForbidden || a.code() != "AuthorizationFailed" {
		t.Errorf("denied: %d %s", a.status, a.raw)
	}
	calls := r.calls()
	if last := calls[len(calls)-1]; last.Fault != "deny" {
		t.Errorf("the call log: %+v", last)
	}
}

// The zones the cloud-controller-manager reads at start, in the shape it
// parses, and the endpoints both clients discover the cloud by.
func TestDiscovery(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	a := r.arm(t, tok, http.MethodGet, "/subscriptions/00000000-0000-0000-0000-000000000000/providers", "2020-06-01", nil, nil)
	var compute map[string]any
	for _, p := range a.body["value"].([]any) {
		if p.(map[string]any)["id"] == "/subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.Compute" {
			compute = p.(map[string]any)
		}
	}
	if compute == nil || !strings.Contains(string(mustJSON(t, compute)), `"zoneMappings":[{"location":"simregion1","zones":["1","2","3"]}]`) {
		t.Errorf("providers: %d %s", a.status, a.raw)
	}
	if a := r.arm(t, tok, http.MethodGet, "/subscriptions/00000000-0000-0000-0000-000000000000/providers", "2016-01-01", nil, nil); a.code() != "InvalidApiVersionParameter" {
		t.Errorf("providers at an old version: %d %s", a.status, a.raw)
	}
	old := do(t, http.MethodGet, r.armAt+"/metadata/endpoints?api-version=1.0", nil, nil)
	if auth, _ := old.body["authentication"].(map[string]any); old.status != http.StatusOK || auth["audiences"] == nil || !strings.HasPrefix(auth["loginEndpoint"].(string), "https://") {
		t.Errorf("endpoints at 1.0: %d %s", old.status, old.raw)
	}
	var clouds []map[string]any
	raw := do(t, http.MethodGet, r.armAt+"/metadata/endpoints?api-version=2019-05-01", nil, nil).raw
	if err := json.Unmarshal(raw, &clouds); err != nil || len(clouds) != 1 || clouds[0]["resourceManager"] != r.armAt+"/" {
		t.Errorf("endpoints at 2019-05-01: %s (%v)", raw, err)
	}
}

// The virtual network and its one subnet hold every interface, under the
// cluster's security group and route table.
func TestTheNetwork(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	sub := r.arm(t, tok, http.MethodGet, "Microsoft.Network/virtualNetworks/c-vnet/subnets/c-subnet", "2019-06-01", nil, nil)
	p, _ := sub.body["properties"].(map[string]any)
	if sub.status != http.StatusOK || p["addressPrefix"] != "172.18.0.0/16" || len(p["ipConfigurations"].([]any)) != 3 ||
		!strings.HasSuffix(p["routeTable"].(map[string]any)["id"].(string), "/routeTables/c-routetable") {
		t.Errorf("the subnet: %d %s", sub.status, sub.raw)
	}
	if vnet := r.arm(t, tok, http.MethodGet, "Microsoft.Network/virtualNetworks/c-vnet", "2022-07-01", nil, nil); vnet.status != http.StatusOK {
		t.Errorf("the network: %d %s", vnet.status, vnet.raw)
	}
	if other := r.arm(t, tok, http.MethodGet, "Microsoft.Network/virtualNetworks/c-vnet/subnets/other", "2022-07-01", nil, nil); other.status != http.StatusNotFound || other.code() != "NotFound" {
		t.Errorf("another subnet: %d %s", other.status, other.raw)
	}
}

// With an availability set, every VM is in it and none is zonal, as
// Azure places them.
func TestAnAvailabilitySetHoldsEveryVM(t *testing.T) {
	r := newRig(t, t.TempDir(), func(o *azure.Options) { o.Network.AvailabilitySet = "c-as" })
	tok := r.token(t, ccmClient)
	vm := r.arm(t, tok, http.MethodGet, "Microsoft.Compute/virtualMachines/c-worker", "2019-07-01", nil, nil)
	as, _ := vm.body["properties"].(map[string]any)["availabilitySet"].(map[string]any)
	if vm.body["zones"] != nil || as == nil || !strings.EqualFold(as["id"].(string), group[:len(group)-len("providers/")]+"providers/Microsoft.Compute/availabilitySets/c-as") {
		t.Errorf("the worker: %s", vm.raw)
	}
	list := r.arm(t, tok, http.MethodGet, "Microsoft.Compute/availabilitySets", "2022-03-01", nil, nil)
	if sets := list.body["value"].([]any); len(sets) != 1 || len(sets[0].(map[string]any)["properties"].(map[string]any)["virtualMachines"].([]any)) != 3 {
		t.Errorf("the availability sets: %s", list.raw)
	}
}
