package nodeimage

import (
	"strings"
	"testing"
)

// A release's managers come in provider order whatever order their
// packages added them in; a manager for no release, or a provider's
// second one, is refused.
func TestAddProviderCCM(t *testing.T) {
	releases := map[string]Release{"v1.27.4": {Kubernetes: "v1.27.4"}}
	addProviderCCM(releases, "v1.27.4", ProviderCCM{Provider: "b"})
	addProviderCCM(releases, "v1.27.4", ProviderCCM{Provider: "a"})
	if got := releases["v1.27.4"].ProviderCCMs; len(got) != 2 || got[0].Provider != "a" || got[1].Provider != "b" {
		t.Errorf("managers %v, want a then b", got)
	}
	for _, c := range []struct{ version, provider string }{{"v1.99.0", "a"}, {"v1.27.4", "b"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("adding %s's manager to %s did not panic", c.provider, c.version)
				}
			}()
			addProviderCCM(releases, c.version, ProviderCCM{Provider: c.provider})
		}()
	}
}

// An on-demand manager is kept apart from the preloaded ones, and a
// provider has one manager per release whichever kind it is.
func TestAddOnDemandProviderCCM(t *testing.T) {
	releases := map[string]Release{"v1.30.14": {Kubernetes: "v1.30.14"}}
	addProviderCCM(releases, "v1.30.14", ProviderCCM{Provider: "b", OnDemand: true})
	addProviderCCM(releases, "v1.30.14", ProviderCCM{Provider: "a"})
	r := releases["v1.30.14"]
	if len(r.ProviderCCMs) != 1 || r.ProviderCCMs[0].Provider != "a" || len(r.OnDemandCCMs) != 1 || r.OnDemandCCMs[0].Provider != "b" {
		t.Errorf("preloaded %v, on demand %v: want a, then b", r.ProviderCCMs, r.OnDemandCCMs)
	}
	for _, c := range []ProviderCCM{{Provider: "a", OnDemand: true}, {Provider: "b"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("a second manager of %s (on demand: %v) did not panic", c.Provider, c.OnDemand)
				}
			}()
			addProviderCCM(releases, "v1.30.14", c)
		}()
	}
}

// A row that sets no link flags is linked as rows were before they could:
// its binaries' build keys stay the same.
func TestProviderLinkFlags(t *testing.T) {
	c := ProviderCCM{Version: "v1.27.2"}
	if got := c.managerLDFlags(); got != "-w -s -X k8s.io/component-base/version.gitVersion=v1.27.2" {
		t.Errorf("manager: %q", got)
	}
	if got := c.credentialProviderLDFlags(); got != "-w -s" {
		t.Errorf("credential provider: %q", got)
	}
	c.LDFlags = "-s -w -X x.y=z"
	if c.managerLDFlags() != c.LDFlags || c.credentialProviderLDFlags() != c.LDFlags {
		t.Errorf("a row's own flags are not used: %q %q", c.managerLDFlags(), c.credentialProviderLDFlags())
	}
}

// No on-demand components without a provider that has them: a build that
// names one refuses, naming where it has them.
func TestPlanWithoutOnDemandManagers(t *testing.T) {
	plan, err := Plan(DefaultVersions, nil)
	if err != nil || len(plan) != len(DefaultVersions) {
		t.Fatalf("default plan %v: %v", plan, err)
	}
	for _, p := range plan {
		if len(p.OnDemand) != 0 {
			t.Errorf("%s plans on-demand managers %v", p.Release.Kubernetes, p.OnDemand)
		}
	}
	if _, err := Plan([]string{"v1.30.14"}, []string{"nosuch"}); err == nil || !strings.Contains(err.Error(), "nosuch has no on-demand components for v1.30.14: it has them for none") {
		t.Errorf("naming a provider without on-demand managers: %v", err)
	}
	if _, err := Plan([]string{"v1.99.0"}, nil); err == nil {
		t.Error("an unknown version was planned")
	}
}
