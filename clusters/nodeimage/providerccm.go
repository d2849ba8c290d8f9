package nodeimage

import (
	"fmt"
	"slices"
	"strings"
)

// ProviderCCM is a provider's cloud-controller-manager, built from its
// release's module as its own image build does (Dockerfile). The fields
// after CredentialProvider are omitted from a release's JSON when unset, so
// a row that sets none digests as it did before they existed.
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
	// LDFlags stamp every binary of the row as the release's own build
	// does; "" = the manager gets -w -s and the release as
	// k8s.io/component-base's gitVersion, the credential provider -w -s.
	LDFlags string `json:",omitempty"`
	// NodeManager is the release's per-node agent, a second image built
	// from the same module (nil = none).
	NodeManager *ProviderImage `json:",omitempty"`
	// OnDemand rows are built only when a build names their provider
	// (Plan), never by the default one, and are not preloaded: the release
	// keeps them apart (Release.OnDemandCCMs), so its node image and that
	// image's key are what they are without them. A built row is a set of
	// image archives and a credential provider in the cache
	// (Builder.OnDemand). They reach a node when a cluster of the release
	// creates it: the archives imported into its containerd once the
	// runtime is up and before the node joins, the credential provider
	// mounted into its CredentialProviderDir. That is the cluster's part,
	// not yet written: until it is, an on-demand row is built and used by
	// no cluster.
	OnDemand bool `json:",omitempty"`
}

// ProviderImage is one more image of a provider's release.
type ProviderImage struct {
	Package string // the main package
	Image   string // the image reference its charts and manifests name
	Binary  string // where the image keeps the binary, its entrypoint
	User    string // the image's USER ("" = root)
}

// managerLDFlags are the manager's (and node manager's) link flags.
func (p ProviderCCM) managerLDFlags() string {
	if p.LDFlags != "" {
		return p.LDFlags
	}
	return "-w -s -X k8s.io/component-base/version.gitVersion=" + p.Version
}

// credentialProviderLDFlags are the credential provider's link flags.
func (p ProviderCCM) credentialProviderLDFlags() string {
	if p.LDFlags != "" {
		return p.LDFlags
	}
	return "-w -s"
}

// AddProviderCCM makes a release's node image carry a provider's manager,
// or, for an OnDemand row, lets a build that names the provider build it.
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
	same := func(p ProviderCCM) bool { return p.Provider == c.Provider }
	if slices.ContainsFunc(r.ProviderCCMs, same) || slices.ContainsFunc(r.OnDemandCCMs, same) {
		panic(fmt.Sprintf("nodeimage: %s adds a second manager to %s", c.Provider, kubernetes))
	}
	byProvider := func(a, b ProviderCCM) int { return strings.Compare(a.Provider, b.Provider) }
	if c.OnDemand {
		r.OnDemandCCMs = append(slices.Clone(r.OnDemandCCMs), c)
		slices.SortStableFunc(r.OnDemandCCMs, byProvider)
	} else {
		r.ProviderCCMs = append(slices.Clone(r.ProviderCCMs), c)
		slices.SortStableFunc(r.ProviderCCMs, byProvider)
	}
	releases[kubernetes] = r
}
