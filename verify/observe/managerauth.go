package observe

import (
	"crypto/tls"
	"fmt"
)

// Credential identifies the observer to the managers: a bearer token or a
// client certificate, and where it was read, as the mode line names it.
type Credential struct {
	Token string
	Cert  *tls.Certificate
	From  string
}

func (c Credential) empty() bool { return c.Token == "" && c.Cert == nil }

// anonymousPath, a manager's /healthz, needs no credential. The managers
// serve it behind delegated authentication and authorization whose
// defaults let anyone in: anonymous requests are authenticated as system:anonymous
// (NewDelegatingAuthenticationOptions: Anonymous Enabled), and /healthz,
// /readyz and /livez skip authorization (NewDelegatingAuthorizationOptions:
// AlwaysAllowPaths), matched on the URL's path alone, so /healthz?verbose
// too (pkg/authorization/path/path.go). Read from k8s.io/apiserver@v0.31.14
// pkg/server/options/authentication.go and authorization.go; the
// cloud-controller-manager takes both unchanged
// (k8s.io/cloud-provider@v0.31.14 options/options.go,
// NewCloudControllerManagerOptions, whose options_test.go pins them;
// TestHealthIsOpenToAnonymousByDefault re-reads it), and so does the
// kube-controller-manager (k8s.io/kubernetes
// cmd/kube-controller-manager/app/options/options.go; older releases
// set /healthz alone). /metrics is not on the list: it needs an
// identity the cluster's RBAC allows it.
//
// So without a CA to verify a manager, observe asks only /healthz, sending
// no Authorization header and no client certificate: whoever answers at
// the address learns nothing but that someone asked.
const anonymousPath = "/healthz"

// Modes are a reach's mode lines, one per manager given: what observe
// sends it and asks it (none for a reach that is not Foreign's).
func Modes(r Reach) []string {
	if f, ok := r.(*foreign); ok {
		return f.o.modes()
	}
	return nil
}

func (o ForeignOptions) modes() []string {
	out := make([]string, 0, len(o.Managers))
	for _, m := range o.Managers {
		out = append(out, fmt.Sprintf("%s %s: %s", shortName(m.Endpoint), m.URL, o.mode()))
	}
	return out
}

func (o ForeignOptions) mode() string {
	switch {
	case o.CA == nil:
		return "anonymous /healthz only, certificate not verified (no --manager-ca: no credential sent; /metrics not available without --manager-ca)"
	case o.Credential.empty():
		return "certificate verified against --manager-ca; anonymous /healthz only (no credential for the managers: /metrics not available without --manager-token or a kubeconfig client certificate or token)"
	}
	return "certificate verified against --manager-ca; /healthz and /metrics with " + o.Credential.From
}

// metricsUnavailable says why /metrics is out of reach ("" when it is
// not): it needs a credential, and a credential goes only to a manager
// whose certificate the CA verified.
func (o ForeignOptions) metricsUnavailable() string {
	switch {
	case o.CA == nil:
		return "not available without --manager-ca: /metrics needs a credential, and none is sent to a manager whose certificate is not verified"
	case o.Credential.empty():
		return "not available without a credential for the managers (--manager-token FILE, or a kubeconfig with a client certificate or token)"
	}
	return ""
}

// shortName is a manager as --manager names it: kcm@cp-1.
func shortName(ep Endpoint) string {
	for alias, m := range managerAliases {
		if m == ep.Manager {
			return alias + "@" + ep.Instance
		}
	}
	return ep.Manager + "@" + ep.Instance
}
