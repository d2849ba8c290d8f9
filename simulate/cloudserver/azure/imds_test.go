package azure_test

import (
	"net/http"
	"strings"
	"testing"
)

// The metadata service tells a VM what both providers read of it, and
// refuses what Azure's refuses.
func TestIMDSAnswersTheVMItIsAskedFrom(t *testing.T) {
	r := newRig(t, t.TempDir())
	md := map[string]string{"Metadata": "True"}
	for _, v := range []string{"2019-03-11", "2021-10-01"} {
		a := do(t, http.MethodGet, r.imdsAt+"/metadata/instance?format=json&api-version="+v, md, nil)
		if a.status != http.StatusOK {
			t.Fatalf("%s: %d %s", v, a.status, a.raw)
		}
		compute := a.body["compute"].(map[string]any)
		want := map[string]string{"name": "c-local", "location": location, "zone": "3", "vmSize": "Standard_D2s_v3",
			"resourceGroupName": cluster, "resourceId": r.network.VMID("c-local")}
		for k, w := range want {
			if compute[k] != w {
				t.Errorf("%s: compute.%s = %v, want %s", v, k, compute[k], w)
			}
		}
		if compute["vmId"] == "" {
			t.Errorf("%s: no vmId", v)
		}
		ip := a.body["network"].(map[string]any)["interface"].([]any)[0].(map[string]any)["ipv4"].(map[string]any)["ipAddress"].([]any)[0].(map[string]any)
		if ip["privateIpAddress"] != "127.0.0.1" || ip["publicIpAddress"] != "" {
			t.Errorf("%s: the interface's addresses %v", v, ip)
		}
	}
	lb := do(t, http.MethodGet, r.imdsAt+"/metadata/loadbalancer?format=json&api-version=2020-10-01", md, nil)
	if lb.status != http.StatusOK || lb.body["loadbalancer"] == nil {
		t.Errorf("load balancer metadata: %d %s", lb.status, lb.raw)
	}
	for name, c := range map[string]struct {
		method, path string
		header       map[string]string
		status       int
		text         string
	}{
		"no Metadata header":   {http.MethodGet, "/metadata/instance?api-version=2021-10-01", nil, http.StatusBadRequest, "Required metadata header not specified"},
		"no api-version":       {http.MethodGet, "/metadata/instance", md, http.StatusBadRequest, "newest-versions"},
		"an unknown version":   {http.MethodGet, "/metadata/instance?api-version=2042-01-01", md, http.StatusBadRequest, "newest-versions"},
		"X-Forwarded-For":      {http.MethodGet, "/metadata/instance?api-version=2021-10-01", map[string]string{"Metadata": "true", "X-Forwarded-For": "10.0.0.1"}, http.StatusBadRequest, "X-Forwarded-For"},
		"a POST":               {http.MethodPost, "/metadata/instance?api-version=2021-10-01", md, http.StatusMethodNotAllowed, "Only GET"},
		"an unknown path":      {http.MethodGet, "/metadata/scheduledevents?api-version=2020-07-01", md, http.StatusNotFound, "doesn't exist"},
		"LB metadata too old":  {http.MethodGet, "/metadata/loadbalancer?api-version=2019-03-11", md, http.StatusBadRequest, "newest-versions"},
		"a token, no header":   {http.MethodGet, "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=x", nil, http.StatusBadRequest, "invalid_request"},
		"a token, no resource": {http.MethodGet, "/metadata/identity/oauth2/token?api-version=2018-02-01", md, http.StatusBadRequest, "audience"},
		"an unknown identity":  {http.MethodGet, "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=x&client_id=nobody", md, http.StatusBadRequest, "Identity not found"},
	} {
		r := newRig(t, t.TempDir()) // each its own rate budget
		a := do(t, c.method, r.imdsAt+c.path, c.header, nil)
		if a.status != c.status || !strings.Contains(string(a.raw), c.text) {
			t.Errorf("%s: %d %s, want %d and %q", name, a.status, a.raw, c.status, c.text)
		}
	}
}

// The service takes five requests a second from a VM, and says when to
// come back.
func TestIMDSThrottlesAVM(t *testing.T) {
	r := newRig(t, t.TempDir())
	var last answer
	for range 8 {
		last = do(t, http.MethodGet, r.imdsAt+"/metadata/instance?api-version=2021-10-01", map[string]string{"Metadata": "true"}, nil)
	}
	if last.status != http.StatusTooManyRequests || last.header.Get("Retry-After") == "" {
		t.Errorf("the eighth request in a second: %d %v", last.status, last.header)
	}
}

// A token names who asked for it: the VM's own identity is the node's
// principal's, a user-assigned one its component's; ARM calls made with
// it reach the cloud as that component, on that node.
func TestTokensCarryTheIdentity(t *testing.T) {
	r := newRig(t, t.TempDir())
	for clientID, principal := range map[string]string{"": "kubelet", ccmClient: "cloud-controller-manager"} {
		tok := r.token(t, clientID)
		a := r.arm(t, tok, http.MethodGet, "Microsoft.Compute/virtualMachines/c-worker", "2022-03-01", nil, nil)
		if a.status != http.StatusOK {
			t.Fatalf("%s: %d %s", principal, a.status, a.raw)
		}
		calls := r.calls()
		if got := calls[len(calls)-1]; got.Principal != principal || got.Node != "c-local" || got.Action != "Microsoft.Compute/virtualMachines/read" {
			t.Errorf("the call log: %+v, want %s on c-local", got, principal)
		}
		if strings.Contains(string(mustJSON(t, calls)), tok) {
			t.Errorf("the call log holds the token")
		}
	}
}
