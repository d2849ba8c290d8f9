package nodeimage

import (
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
