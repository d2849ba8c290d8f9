package azure

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// token answers the managed-identity endpoint: a token for the resource
// asked, as the VM's own identity or the user-assigned one client_id
// names. The answer's fields are adal's Token (go-autorest adal@v0.9.23
// token.go), numbers as strings as the metadata service writes them. Its
// refusals are OAuth's, {"error","error_description"} (the managed
// identity documentation's "Error handling").
func (m *imds) token(r *http.Request, in api.Instance) imdsAnswer {
	q := r.URL.Query()
	if !metadataHeader(r) {
		return oauthError(http.StatusBadRequest, "invalid_request", "Required metadata header not specified")
	}
	if !slices.Contains(tokenVersions, q.Get("api-version")) {
		return oauthError(http.StatusBadRequest, "invalid_request", "Invalid or missing api-version: this endpoint serves "+tokenVersions[0]+" and "+tokenVersions[1])
	}
	resource := q.Get("resource")
	if resource == "" {
		return oauthError(http.StatusBadRequest, "invalid_request", "Required audience parameter not specified")
	}
	who, ok := m.face.identity(in.Name, q.Get("client_id"))
	if !ok || q.Has("object_id") || q.Has("mi_res_id") || q.Has("msi_res_id") {
		return oauthError(http.StatusBadRequest, "invalid_request", "Identity not found")
	}
	now := m.face.opts.Now()
	exp := now.Add(tokenLifetime)
	body := map[string]string{
		"access_token":   sign(m.face.opts.TokenKey, claims{caller: who, Resource: resource, Expires: exp.Unix()}),
		"client_id":      q.Get("client_id"),
		"expires_in":     strconv.Itoa(int(tokenLifetime.Seconds()) - 1),
		"ext_expires_in": strconv.Itoa(int(tokenLifetime.Seconds()) - 1),
		"expires_on":     strconv.FormatInt(exp.Unix(), 10),
		"not_before":     strconv.FormatInt(now.Unix(), 10),
		"resource":       resource,
		"token_type":     "Bearer",
	}
	return imdsAnswer{status: http.StatusOK, body: body, who: who}
}

// identity is who a token request from a node's VM is: the user-assigned
// identity of clientID, or the VM's own.
func (f *Face) identity(node, clientID string) (caller, bool) {
	if clientID == "" {
		return caller{Principal: f.opts.NodePrincipal, Node: node}, true
	}
	principal, ok := f.opts.Identities[clientID]
	return caller{Principal: principal, Node: node}, ok
}

func oauthError(status int, code, description string) imdsAnswer {
	return imdsAnswer{status: status, body: map[string]string{"error": code, "error_description": description}}
}
