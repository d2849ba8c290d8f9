package profiles_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
)

// TestSimulatedManagerBehavesAsTheProfiles: what the simulated
// cloud-controller-manager does when it imitates a provider is what that
// provider's profile read from its source, at every minor; and it
// imitates the imitated providers only.
func TestSimulatedManagerBehavesAsTheProfiles(t *testing.T) {
	for _, pr := range providers.All() {
		if pr.Runs() != providers.Imitated {
			continue
		}
		profile := providers.ProfileName(pr.Name())
		b, err := behaviour.Lookup(profile)
		if err != nil {
			t.Errorf("the simulated manager cannot imitate %s (profile %s): %v", pr.Name(), profile, err)
			continue
		}
		if n := behavesAsTheProfiles(t, profile, b); n == 0 {
			t.Errorf("the simulated manager behaves as %q, which has no profile", profile)
		}
	}
	imitated := map[string]bool{}
	for _, pr := range providers.All() {
		if pr.Runs() == providers.Imitated {
			imitated[providers.ProfileName(pr.Name())] = true
		}
	}
	for name := range behaviour.Of {
		if !providers.IsDefault(name) && !imitated[name] {
			t.Errorf("the simulated manager behaves as %q, which no imitated provider imitates", name)
		}
	}
}

// behavesAsTheProfiles holds b to each of a provider's profiles, and
// says how many it has.
func behavesAsTheProfiles(t *testing.T, name string, b behaviour.Behaviour) int {
	t.Helper()
	n := 0
	for _, p := range profiles.All() {
		if p.Provider != name {
			continue
		}
		n++
		if b.IgnoresLeaderMigration != !p.CCM.LeaderMigration.Value || b.NodeIPAM != p.CCM.NodeIPAM.Value {
			t.Errorf("%s: the simulated manager ignores leader migration %t, node IPAM %q; the profile: honours %t, %q",
				p.Key(), b.IgnoresLeaderMigration, b.NodeIPAM, p.CCM.LeaderMigration.Value, p.CCM.NodeIPAM.Value)
		}
		if off := slices.Contains(p.CCM.Disabled.Value, p.CCM.NodeIPAM.Value); b.NodeIPAMOnByDefault == off {
			t.Errorf("%s: the simulated manager starts node IPAM by default %t; the profile disables %v", p.Key(), b.NodeIPAMOnByDefault, p.CCM.Disabled.Value)
		}
		namesAsTheProfile(t, p, b)
	}
	return n
}

// TestBooleanFactsHaveEvidenceOfTheirValue: a true fact is held by what
// its sources find (none may be a missing thing), a false one by at least
// one missing thing, so flipping a value without its sources fails.
func TestBooleanFactsHaveEvidenceOfTheirValue(t *testing.T) {
	for _, p := range profiles.All() {
		for name, f := range facts(p) {
			b, ok := f.(profiles.Fact[bool])
			if !ok {
				continue
			}
			missing := false
			for _, s := range b.From {
				missing = missing || s.Absent
			}
			if b.Value == missing {
				t.Errorf("%s %s is %t, but its sources say %t (a true fact cites only what is there; a false one, something missing)", p.Key(), name, b.Value, !missing)
			}
		}
	}
}

// namesAsTheProfile: the ProviderIDs and load balancers the simulated
// cloud hands out when it behaves as p's provider are of the forms p's
// sources give.
func namesAsTheProfile(t *testing.T, p profiles.Profile, b behaviour.Behaviour) {
	t.Helper()
	id := b.ProviderIDOf("<group>", "<vm>")
	id = strings.Replace(id, behaviour.Subscription, "<subscription>", 1)
	if !strings.HasPrefix(p.Naming.ProviderID.Value, id+" ") {
		t.Errorf("%s: the simulated cloud's ProviderIDs %q are not the profile's %q", p.Key(), id, p.Naming.ProviderID.Value)
	}
	lb, group := b.LoadBalancerOf("<cluster>", "<default>")
	perCluster := strings.HasPrefix(p.Naming.LoadBalancer.Value, "one Azure load balancer named by the cluster name")
	frontend := strings.Contains(p.Naming.LoadBalancer.Value, `each Service is a frontend IP configuration named "a"+its UID without dashes, cut to 32`)
	if (group == "<cluster>") != perCluster || (lb == "<default>") != frontend {
		t.Errorf("%s: the simulated cloud names a Service's load balancer %q in %q; the profile: %q", p.Key(), lb, group, p.Naming.LoadBalancer.Value)
	}
}
