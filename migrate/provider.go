package migrate

import (
	"fmt"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
)

// Provider is the provider the spec's procedure moves controllers to: the
// one registered under the spec's profile when the program has that
// provider's own code (aws), else the simulated cloud's. A program that
// registered no simulated provider is wired wrong (it did not import the
// simulated cloud), which no input can cause.
func (s Spec) Provider() providers.Provider {
	if s.CloudProfile != "" {
		if p, err := providers.Lookup(s.CloudProfile); err == nil {
			return p
		}
	}
	p, err := providers.Lookup(providers.Simulated)
	if err != nil {
		panic(err)
	}
	return p
}

// OwnCode: the spec's provider runs its own code (in tree and in its
// cloud-controller-manager), not the simulated cloud's behaving as it.
func (s Spec) OwnCode() bool {
	_, err := providers.Lookup(s.CloudProfile)
	return s.CloudProfile != "" && err == nil
}

// SetCloudProfile makes the simulated cloud and its manager behave as
// provider's ("" for upstream's), which needs a profile for the minor
// the cloud-controller-manager runs at; whether the simulated manager can imitate it is the cloud's to
// say (simulate/cloudcluster.ValidateProfile).
func (s *Spec) SetCloudProfile(provider string) error {
	if provider == "" || provider == providers.Simulated {
		s.CloudProfile = ""
		return nil
	}
	if _, err := profiles.Lookup(provider, s.ccmVersion()); err != nil {
		return fmt.Errorf("--provider: %w", err)
	}
	if p, err := providers.Lookup(provider); err == nil {
		// Its own code: the manager's image must be in N+1's node image,
		// and N's managers must still have the provider in tree.
		if p.CCMImage(s.ccmVersion()) == "" {
			return fmt.Errorf("--provider %s: the %s node image carries no %s cloud-controller-manager", provider, s.ccmVersion(), provider)
		}
		if from, err := profiles.Lookup(provider, s.From); err != nil || !from.InTree.Value {
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
	p, err := profiles.Lookup(s.CloudProfile, s.ccmVersion())
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
	p := s.Provider()
	code := func(f func(string) string, version string) string {
		c := ""
		if f != nil {
			c = f(version)
		}
		if c == "" {
			c = "unknown"
		}
		if !s.OwnCode() && s.CloudProfile != "" {
			c += " behaving as " + s.CloudProfile
		}
		return c
	}
	return []SideCode{
		{Side: "in-tree", Runs: "kube-controller-manager " + s.From + " and the kubelets", Code: code(p.Code.InTree, s.From), API: p.Code.API},
		{Side: "external", Runs: "cloud-controller-manager " + s.ccmVersion(), Code: code(p.Code.CCM, s.ccmVersion()), API: p.Code.API},
	}
}
