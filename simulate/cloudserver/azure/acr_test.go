package azure_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/azure"
	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
)

const acrHost = "handover.azurecr.io"

// exchange posts the providers' exchange form with an AD token.
func (r *rig) exchange(t *testing.T, grant, service, aad string) answer {
	t.Helper()
	form := url.Values{"grant_type": {grant}, "service": {service}, "tenant": {"t"}, "access_token": {aad}, "refresh_token": {aad}}
	return do(t, http.MethodPost, r.armAt+"/oauth2/exchange", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, []byte(form.Encode()))
}

// The exchange swaps a kubelet's AD token for a refresh token the
// registry takes, issued to the token's holder; it refuses a token ARM
// would refuse, a form the providers do not send, and an identity the
// cloud denies the registry.
func TestACRExchange(t *testing.T) {
	key, _ := ecrtoken.NewKey()
	r := newRigOf(t, t.TempDir(), cloudserver.Registry{Host: acrHost, TokenKey: key}, func(o *azure.Options) { o.Registry = acrHost })
	aad := r.token(t, "")
	a := r.exchange(t, "access_token_refresh_token", acrHost, aad)
	refresh, _ := a.body["refresh_token"].(string)
	if who, ok := ecrtoken.Verify(key, refresh, time.Now()); a.status != http.StatusOK || !ok || who != "kubelet@c-local" {
		t.Fatalf("exchange: %d %s: refresh token for %q (%v)", a.status, a.raw, who, ok)
	}
	calls := r.calls()
	if got := calls[len(calls)-1]; got.Service != "acr" || got.Action != "Microsoft.ContainerRegistry/registries/exchange" || got.Principal != "kubelet" || got.Node != "c-local" {
		t.Errorf("the call log: %+v", got)
	}
	if strings.Contains(string(mustJSON(t, calls)), refresh) || strings.Contains(string(mustJSON(t, calls)), aad) {
		t.Errorf("the call log holds a token")
	}
	for what, c := range map[string]struct {
		grant, service, aad string
		want                int
	}{
		"a password grant":  {"password", acrHost, aad, http.StatusBadRequest},
		"another registry":  {"access_token", "other.azurecr.io", aad, http.StatusBadRequest},
		"a forged token":    {"access_token", acrHost, aad + "x", http.StatusUnauthorized},
		"no token":          {"access_token", acrHost, "", http.StatusUnauthorized},
		"az acr login form": {"access_token", acrHost, aad, http.StatusOK},
	} {
		if a := r.exchange(t, c.grant, c.service, c.aad); a.status != c.want {
			t.Errorf("%s: %d %s, want %d", what, a.status, a.raw, c.want)
		}
	}
	if err := r.admin().SetFaults(t.Context(), api.Faults{Deny: map[string][]string{"kubelet": {"GetRegistryToken"}}}); err != nil {
		t.Fatal(err)
	}
	if a := r.exchange(t, "access_token", acrHost, aad); a.status != http.StatusUnauthorized {
		t.Errorf("a denied identity: %d %s, want 401", a.status, a.raw)
	}
	calls = r.calls()
	if got := calls[len(calls)-1]; got.Fault != "deny" {
		t.Errorf("the denial's record: %+v", got)
	}
}

// A cloud without a registry exchanges nothing.
func TestACRExchangeWithoutRegistry(t *testing.T) {
	r := newRig(t, t.TempDir())
	if a := r.exchange(t, "access_token", acrHost, r.token(t, "")); a.status != http.StatusNotFound {
		t.Errorf("%d %s, want 404", a.status, a.raw)
	}
}
