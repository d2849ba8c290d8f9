package azure

import (
	"encoding/json"
	"net/http"

	"github.com/handover-sh/handover/simulate/cloudserver/registry"
)

// The registry's token exchange (ACR's POST /oauth2/exchange), which the
// cluster's registry relays here as it came: an Azure AD token swapped for
// a refresh token of the registry. ARM's token checks apply to the token,
// and the refresh token is the cloud's registry token, asked for as the
// token's holder, so the cloud's audit and knobs (deny, throttle, outage)
// see the pull's credentials as the kubelet's. The form is
// performTokenExchange's (cloud-provider-azure v1.30.4 pkg/
// credentialprovider/azure_acr_helper.go; the same in Kubernetes v1.29.15
// pkg/credentialprovider/azure); the answer {"refresh_token"}. Refusals are
// in the registry's error form, which the providers read only the status
// of.

// exchangeAction names the exchange in the call log.
const exchangeAction = "Microsoft.ContainerRegistry/registries/exchange"

// exchangeGrants are the grant types the exchange takes: the providers'
// and az acr login's.
var exchangeGrants = map[string]bool{"access_token_refresh_token": true, "access_token": true}

// serveExchange answers one exchange and records it.
func (f *Face) serveExchange(w http.ResponseWriter, r *http.Request) {
	rec := Record{Time: f.opts.Now(), Service: "acr", Action: exchangeAction, Resource: f.opts.Registry, RemoteAddr: r.RemoteAddr, Status: http.StatusOK}
	status, body := f.exchange(r, &rec)
	rec.Status = status
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
	if f.opts.Record != nil {
		f.opts.Record(rec)
	}
}

func (f *Face) exchange(r *http.Request, rec *Record) (int, any) {
	if f.opts.Registry == "" {
		rec.Code = "NAME_UNKNOWN"
		return http.StatusNotFound, registryError("NAME_UNKNOWN", "this cloud has no registry")
	}
	if r.Method != http.MethodPost {
		return http.StatusMethodNotAllowed, registryError("UNSUPPORTED", r.Method+" "+registry.ExchangePath)
	}
	r.Body = http.MaxBytesReader(nil, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil || !exchangeGrants[r.PostForm.Get("grant_type")] || r.PostForm.Get("service") != f.opts.Registry {
		rec.Code = "UNSUPPORTED"
		return http.StatusBadRequest, registryError("UNSUPPORTED", "want grant_type access_token or access_token_refresh_token, service "+f.opts.Registry+" and an access_token")
	}
	who, err := f.holder(r.PostForm.Get("access_token"))
	if err != nil {
		e := asARM(err)
		rec.Code, rec.Message = e.Code, e.Message
		return http.StatusUnauthorized, registryError("UNAUTHORIZED", e.Message)
	}
	rec.Principal, rec.Node = who.Principal, who.Node
	tok, err := f.cloud(who).RegistryToken(r.Context(), "acr-credential-provider")
	if err != nil {
		e := refusal(err, who, exchangeAction, nil)
		rec.Code, rec.Message, rec.Fault = e.Code, e.Message, e.Fault
		if e.Status == http.StatusForbidden {
			// The registry's word for an identity that may not pull.
			return http.StatusUnauthorized, registryError("UNAUTHORIZED", e.Message)
		}
		return e.Status, registryError(e.Code, e.Message)
	}
	return http.StatusOK, map[string]string{"refresh_token": tok.Password}
}

// registryError is the distribution spec's error form, ACR's.
func registryError(code, message string) map[string]any {
	return map[string]any{"errors": []map[string]string{{"code": code, "message": message}}}
}
