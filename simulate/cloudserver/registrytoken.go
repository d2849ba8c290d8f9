package cloudserver

import (
	"net/http"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
)

// The simulated cloud's own registry (as ECR and ACR are a cloud's): a
// caller with the cloud's credentials gets a token for it, which a
// kubelet's image credential provider hands to containerd. The token is
// the cloud's call like any other, so the audit and the fault knobs
// (deny, scope, throttle) apply to it.

// RegistryUser is the user name of every token of the cloud's registry.
const RegistryUser = "simcloud"

// registryTokenLife is how long a token is good for. A kubelet caches it
// for as long as its provider says (the plugin answers with this).
const registryTokenLife = time.Hour

// Registry is the cloud's container registry.
type Registry struct {
	Host     string // the registry's name, as images name it
	TokenKey []byte // signs the tokens' passwords (ecrtoken's scheme)
}

// registryToken issues a token to the calling component (on its node).
func (s *Server) registryToken(r *http.Request) (any, error) {
	reg := s.opts.Registry
	if reg.Host == "" || len(reg.TokenKey) == 0 {
		return nil, notFound("this cloud has no registry")
	}
	principal := r.Header.Get(api.HeaderComponent)
	if node := r.Header.Get(api.HeaderNode); node != "" {
		principal += "@" + node
	}
	expires := s.opts.Now().Add(registryTokenLife).Truncate(time.Second)
	return api.RegistryToken{Registry: reg.Host, Username: RegistryUser,
		Password: ecrtoken.Password(reg.TokenKey, principal, expires), ExpiresAt: expires}, nil
}
