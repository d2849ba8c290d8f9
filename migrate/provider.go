package migrate

import (
	"fmt"
	"time"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
)

// cloud is the provider the spec's procedure moves controllers to: the
// one named by the spec's profile, else the default (the simulated cloud).
// A profile that names no provider was refused when it was set.
func (s Spec) cloud() providers.Provider {
	if p, err := providers.Lookup(s.CloudProfile); err == nil {
		return p
	}
	return providers.Default()
}

// Provider is the cloud-controller-manager the spec's procedure places:
// its provider's own, or the default provider's (whose manager behaves as
// an imitated provider's).
func (s Spec) Provider() providers.Manager {
	m, ok := providers.As[providers.Managed](s.running())
	if !ok {
		panic(fmt.Sprintf("provider %q runs code and places no cloud-controller-manager", s.running().Name()))
	}
	return m.Manager()
}

// running is the provider whose code the managers run: the spec's, or
// the default provider's when that imitates the spec's.
func (s Spec) running() providers.Provider {
	if s.imitated() {
		return providers.Default()
	}
	return s.cloud()
}

// Registry is the image registry of the cloud the managers' code runs
// against, if it has one.
func (s Spec) Registry() (providers.ImageRegistry, bool) {
	return providers.As[providers.ImageRegistry](s.running())
}

// Audited is the cloud API the managers' code calls, if the simulated
// cloud serves one of the provider's own and records the calls.
func (s Spec) Audited() (providers.Audited, bool) {
	return providers.As[providers.Audited](s.running())
}

// NodeMetadataLag is how long the Nodes of the provider the managers run
// take to show a change of the cloud (0: at once).
func (s Spec) NodeMetadataLag() time.Duration {
	if l, ok := providers.As[providers.NodeMetadataLag](s.running()); ok {
		return l.NodeMetadataLag()
	}
	return 0
}

// RouteBatch is how long the provider the managers run may hold a route
// write back (0: it writes each at once).
func (s Spec) RouteBatch() time.Duration {
	if b, ok := providers.As[providers.RouteBatching](s.running()); ok {
		return b.RouteBatch()
	}
	return 0
}

// OwnCode: the spec's provider runs its own code (in tree and in its
// cloud-controller-manager), not the simulated cloud's behaving as it.
func (s Spec) OwnCode() bool { return s.cloud().Runs() == providers.OwnCode }

// imitated: the simulated manager behaves as the spec's provider's.
func (s Spec) imitated() bool { return s.cloud().Runs() == providers.Imitated }

// SetCloudProfile makes the rehearsal run provider's code, or the
// simulated cloud's manager behave as provider's ("" or the default
// provider: upstream's), which needs a profile for the minor the
// cloud-controller-manager runs at.
func (s *Spec) SetCloudProfile(provider string) error {
	if providers.IsDefault(provider) {
		s.CloudProfile = ""
		return nil
	}
	p, err := providers.Lookup(provider)
	if err != nil {
		return fmt.Errorf("--provider: %w", err)
	}
	if _, err := profiles.Lookup(providers.ProfileName(provider), s.ccmVersion()); err != nil {
		return fmt.Errorf("--provider: %w", err)
	}
	if p.Runs() == providers.OwnCode {
		// Its own code: the manager's image must be in N+1's node image,
		// and N's managers must still have the provider in tree.
		m, _ := providers.As[providers.Managed](p)
		if m == nil || m.Manager().Forms.Image(s.ccmVersion()) == "" {
			return fmt.Errorf("--provider %s: the %s node image carries no %s cloud-controller-manager", provider, s.ccmVersion(), provider)
		}
		if from, err := profiles.Lookup(providers.ProfileName(provider), s.From); err != nil || !from.InTree.Value {
			return fmt.Errorf("--provider %s: Kubernetes %s has no in-tree %s provider to migrate from", provider, s.From, provider)
		}
	}
	s.CloudProfile = provider
	return nil
}

// CCMTakesMigrationLease: the procedure uses leader migration and the
// spec's provider has a leader-migration filter (upstream's and aws's do;
// azure's accepts the flags and ignores them), so its
// cloud-controller-manager takes the migration lease. (A mistake that
// starts it without leader migration is judged by the checks, not here.)
func (s Spec) CCMTakesMigrationLease() bool {
	if !s.reg().Managers.migrates() {
		return false
	}
	if s.CloudProfile == "" {
		return true
	}
	p, err := profiles.Lookup(providers.ProfileName(s.CloudProfile), s.ccmVersion())
	return err != nil || p.CCM.LeaderMigration.Value
}

// ccmVersion is the version the procedure runs the cloud-controller-manager
// at: N+1 with the new control planes (the task doc), N beside the old ones
// (Rancher's charts).
func (s Spec) ccmVersion() string { return s.version(s.reg().Managers.CCMAt) }

// SideCode is the provider code one side of the procedure runs.
type SideCode struct {
	Side string // in-tree or external
	Runs string // the managers that run it
	Code string // module@version, or the simulated provider's package
	API  string // the cloud API it calls ("" for the simulated cloud's own)
}

// ProviderCode names the code each side runs, for the reports.
func (s Spec) ProviderCode() []SideCode {
	p := s.running()
	coded, _ := providers.As[providers.Coded](p)
	api := ""
	if a, ok := s.Audited(); ok {
		api = a.API()
	}
	code := func(f func(string) string, version string) string {
		c := ""
		if coded != nil {
			c = f(version)
		}
		if c == "" {
			c = "unknown"
		}
		if s.imitated() {
			c += " behaving as " + providers.ProfileName(s.CloudProfile)
		}
		return c
	}
	inTree, ccm := func(string) string { return "" }, func(string) string { return "" }
	if coded != nil {
		inTree, ccm = coded.InTreeCode, coded.CCMCode
	}
	return []SideCode{
		{Side: "in-tree", Runs: "kube-controller-manager " + s.From + " and the kubelets", Code: code(inTree, s.From), API: api},
		{Side: "external", Runs: "cloud-controller-manager " + s.ccmVersion(), Code: code(ccm, s.ccmVersion()), API: api},
	}
}
