package nodeimage

import (
	"fmt"
	"slices"
	"strings"
)

// ProviderCCM is a provider's cloud-controller-manager, built from its
// release's module as its own image build does (Dockerfile).
type ProviderCCM struct {
	Provider string // the provider's name, as its profiles give it
	Module   string // directory under modules/ pinning the release
	Version  string // the release, e.g. v1.27.2 (the binary's gitVersion)
	Package  string // the main package
	Image    string // the image reference its charts and manifests name
	Binary   string // where the image keeps the binary, its entrypoint
	// CredentialProvider is the main package of the provider's kubelet
	// image credential provider, built from the same module and installed
	// on the node in CredentialProviderDir ("" = none).
	CredentialProvider string
}

// AddProviderCCM makes a release's node image carry a provider's manager.
// The provider's package calls it at init, so the release table names no
// provider and a program sees the managers of the providers it imports.
func AddProviderCCM(kubernetes string, c ProviderCCM) { addProviderCCM(Releases, kubernetes, c) }

// addProviderCCM keeps a release's managers in provider order, not in the
// order their packages ran init: the order places their images in the node
// image, and so decides its build key. A release handover does not have,
// or a provider's second manager for one, is a wiring mistake no input can
// cause.
func addProviderCCM(releases map[string]Release, kubernetes string, c ProviderCCM) {
	r, ok := releases[kubernetes]
	if !ok {
		panic(fmt.Sprintf("nodeimage: %s adds a manager to %s, which is no release", c.Provider, kubernetes))
	}
	if slices.ContainsFunc(r.ProviderCCMs, func(p ProviderCCM) bool { return p.Provider == c.Provider }) {
		panic(fmt.Sprintf("nodeimage: %s adds a second manager to %s", c.Provider, kubernetes))
	}
	r.ProviderCCMs = append(slices.Clone(r.ProviderCCMs), c)
	slices.SortStableFunc(r.ProviderCCMs, func(a, b ProviderCCM) int { return strings.Compare(a.Provider, b.Provider) })
	releases[kubernetes] = r
}
