package nodeimage

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Planned is what a build makes of one release: its node image, and the
// on-demand managers of the providers the build names.
type Planned struct {
	Release  Release
	OnDemand []ProviderCCM
}

// Plan lists what building versions does. providers name whose on-demand
// managers to build besides (`handover images build --provider azure`);
// with none, a build makes the node images only, as it always has. A
// provider with no on-demand manager for any of the versions is a mistake
// the error names the versions for.
func Plan(versions, providers []string) ([]Planned, error) {
	plan := make([]Planned, 0, len(versions))
	named := map[string]bool{}
	for _, v := range versions {
		r, err := Lookup(v)
		if err != nil {
			return nil, err
		}
		p := Planned{Release: r}
		for _, c := range r.OnDemandCCMs {
			if slices.Contains(providers, c.Provider) {
				p.OnDemand = append(p.OnDemand, c)
				named[c.Provider] = true
			}
		}
		plan = append(plan, p)
	}
	for _, name := range providers {
		if !named[name] {
			return nil, fmt.Errorf("%s has no on-demand components for %s: it has them for %s", name,
				strings.Join(versions, ", "), orNone(OnDemandVersions(name)))
		}
	}
	return plan, nil
}

// OnDemandVersions lists the releases a provider has on-demand managers
// for, sorted.
func OnDemandVersions(provider string) []string {
	var out []string
	for _, v := range Known() {
		if slices.ContainsFunc(Releases[v].OnDemandCCMs, func(c ProviderCCM) bool { return c.Provider == provider }) {
			out = append(out, v)
		}
	}
	return out
}

func orNone(vs []string) string {
	if len(vs) == 0 {
		return "none"
	}
	return strings.Join(vs, ", ")
}

// OnDemandBuild is an on-demand manager as built: what a cluster of its
// release takes into each node it creates.
type OnDemandBuild struct {
	Manager ProviderCCM
	// Archives are `docker save` files of the manager's images, to import
	// into a node's containerd (ctr -n k8s.io images import).
	Archives []string
	// CredentialProvider is the kubelet plugin's binary, for the node's
	// CredentialProviderDir ("" = none).
	CredentialProvider string
}

// OnDemand builds (or finds cached) an on-demand manager's images and
// credential provider. It is cached as the preloaded ones are, so a
// cluster asking again for what a build made gets the same paths at once.
func (b *Builder) OnDemand(ctx context.Context, p ProviderCCM) (OnDemandBuild, error) {
	out := OnDemandBuild{Manager: p}
	specs, err := b.providerImages(ctx, p)
	if err != nil {
		return out, err
	}
	for _, s := range specs {
		a, err := b.cachedImage(s)
		if err != nil {
			return out, err
		}
		out.Archives = append(out.Archives, a.Path)
	}
	if p.CredentialProvider != "" {
		if out.CredentialProvider, err = b.credentialProviderBinary(ctx, p); err != nil {
			return out, err
		}
	}
	return out, nil
}

// buildOnDemand builds a planned release's on-demand managers.
func (b *Builder) buildOnDemand(ctx context.Context, p Planned) error {
	for _, c := range p.OnDemand {
		built, err := b.OnDemand(ctx, c)
		if err != nil {
			return fmt.Errorf("%s %s for %s: %w", c.Module, c.Version, p.Release.Kubernetes, err)
		}
		if err := recordOnDemand(b.CacheDir, p.Release.Kubernetes, built); err != nil {
			return err
		}
		files := built.Archives
		if built.CredentialProvider != "" {
			files = append(files, built.CredentialProvider)
		}
		b.Logger.V(0).Infof(" ✓ %s for %s: %s", c.Module, p.Release.Kubernetes, strings.Join(files, " "))
	}
	return nil
}
