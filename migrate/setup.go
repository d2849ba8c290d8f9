package migrate

import (
	"fmt"
	"slices"

	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/providers"
)

// Setup is how the managers taking part are set up, derived from a Spec's
// registration and then changed by its mistake, if any. Steps build their
// flags, files and plans from it, and the preflight lint checks it: what
// is linted is what runs.
type Setup struct {
	// KCM is the version-N kube-controller-manager with the in-tree provider.
	KCM lint.Side
	// CCM is the cloud-controller-manager; nil when none is started.
	CCM *lint.Side
	// NewKCM is the version-N+1 kube-controller-manager; nil when the
	// procedure keeps the version-N ones.
	NewKCM *lint.Side
	// GrantCCM: the cloud-controller-manager is granted the migration lease.
	GrantCCM bool
	// N1ByHostname: version-N+1 nodes join under their hostnames, not the
	// names the cluster's nodes were given (from the instance metadata).
	N1ByHostname bool
	// N1NoImageCredentials: version-N+1 kubelets start without the
	// provider's image credential provider.
	N1NoImageCredentials bool
	// NoNodeManager: the provider's node manager, which initialises the
	// Nodes its manager leaves out, is not deployed.
	NoNodeManager bool
	// SwitchByHostname: kubelets switched to the external provider lose
	// the name the provider gave them and register under their hostnames.
	SwitchByHostname bool
	// SwitchByMetadata: kubelets switched to the external provider take
	// their instance metadata's hostname as their name
	// (Managers.SwitchNamesFromMetadata).
	SwitchByMetadata bool
	// Notes are added to the plans of the steps they are keyed by.
	Notes map[string][]Item
}

// Step keys of Setup.Notes: step names, without a node's number.
const (
	grantKey     = "grant-migration-lease"
	newConfigKey = "prepare-n1-cluster-configuration"
	addN1Key     = "add-n1-control-plane"
	switchKey    = "switch-to-external"
	deployKey    = "deploy-ccm"
)

// setup derives the Setup of s.
func (s Spec) setup() Setup { return s.setupAs(s.configStyle()) }

// setupAs derives the Setup of s with its leader-migration files as style
// says.
func (s Spec) setupAs(style ConfigStyle) Setup {
	m := s.reg().Managers
	side := func(component, version, cloud string, cfg *lmconfig.Config) lint.Side {
		sd := lint.Side{Component: component, Version: version, CloudProvider: cloud, LeaderMigration: m.migrates(), AllocateNodeCIDRs: true,
			ClusterName: s.Cluster, Args: s.args(component)}
		if component == lmconfig.CCM {
			sd.Provider = providers.ProfileName(s.CloudProfile)
		}
		if cfg != nil {
			sd.Config, sd.ConfigPath = cfg, component+":"+LMConfigPath
		}
		return sd
	}
	config := func(component, version string) *lmconfig.Config {
		switch style {
		case BuiltIn, NoMigration:
			return nil
		case Wildcard:
			return s.wildcardConfig(component, version)
		}
		return s.lmConfig(component, version)
	}
	ccm := side(lmconfig.CCM, s.version(m.CCMAt), "", config(lmconfig.CCM, s.version(m.CCMAt)))
	ccm.AfterSwitch = s.Variant.CCMLast || (m.CCMHeld != nil && m.CCMHeld(s))
	if mf := s.CCMManifest; mf != nil {
		// The manager runs with the manifest's flags, then the user's.
		own, _ := mf.runFlags(s.Provider(), s.Cluster, s.PodSubnet)
		ccm.Args = append(own, s.CCMArgs...)
	}
	st := Setup{KCM: side(lmconfig.KCM, s.From, s.Provider().CloudProvider, config(lmconfig.KCM, s.From)), CCM: &ccm,
		GrantCCM: m.migrates(), Notes: map[string][]Item{}}
	st.KCM.Controllers = m.KCMControllers
	_, served := providers.As[providers.InstanceMetadata](s.cloud())
	st.SwitchByMetadata = served && slices.Contains(m.SwitchNamesFromMetadata, s.Flavour)
	if m.NewKCM || s.Raises() {
		st.NewKCM = &lint.Side{Component: lmconfig.KCM, Version: s.To, AllocateNodeCIDRs: true, ClusterName: s.Cluster, Args: s.KCMArgs}
	}
	if s.migrates(lint.NodeIPAM) {
		// The cloud-controller-manager must start its node IPAM (off by
		// default) and the N+1 kube-controller-manager must not.
		st.CCM.Controllers = fmt.Sprintf(ccmNodeIPAMControllers, ownName(lmconfig.CCM, st.CCM.Version, lint.NodeIPAM))
		if st.NewKCM != nil {
			st.NewKCM.Controllers = fmt.Sprintf(kcmNoNodeIPAM, ownName(lmconfig.KCM, s.To, lint.NodeIPAM))
		}
	}
	s.KCMConfig.apply(&st.KCM)
	s.CCMConfig.apply(st.CCM)
	st.KCM.CloudConfig, st.CCM.CloudConfig = s.lintCloudConfig(SideKCM), s.lintCloudConfig(SideCCM)
	if mk, ok := mistakes[s.Mistake]; ok {
		mk.apply(&st, s)
		at := mk.noteAt(s)
		st.Notes[at] = append(st.Notes[at], Item{Kind: Note, Body: "DELIBERATE MISTAKE: " + mk.what + mk.detail + "."})
	}
	return st
}

// SwitchKeepsNodeNames: kubelets switched to the external provider keep
// the names their provider gave their Nodes (false under the mistake that
// leaves the runbook's option for it out).
func (s Spec) SwitchKeepsNodeNames() bool { return !s.setup().SwitchByHostname }

// Sides are the managers a procedure runs, set up as its steps set them
// up: what the preflight lint checks.
func (s Spec) Sides() []lint.Side { return s.setup().sides() }

func (st Setup) sides() []lint.Side {
	sides := []lint.Side{st.KCM}
	for _, sd := range []*lint.Side{st.CCM, st.NewKCM} {
		if sd != nil {
			sides = append(sides, *sd)
		}
	}
	return sides
}

// configStyle is what the procedure's leader-migration files say: the
// source's built-in default where the source relies on it and the lint
// finds it safe on the spec's versions, the registration's file elsewhere.
func (s Spec) configStyle() ConfigStyle {
	m := s.reg().Managers
	if m.FollowsDefault && s.builtInSafe() {
		return BuiltIn
	}
	return m.Config
}

// builtInSafe: with the built-in default on both managers, the lint
// predicts every migrated controller in one manager at a time and finds no
// error the registration's file would not have too (a flag of the user's
// is judged the same either way). The procedure's own setup is judged: the
// user's configurations and a mistake replace it, not the source.
func (s Spec) builtInSafe() bool {
	bare := s.bare()
	def := bare.setupAs(BuiltIn).sides()
	p := lint.Predict(s.Controllers(), def...)
	if len(p.Both)+len(p.Orphaned)+len(p.Unknown) > 0 {
		return false
	}
	return lint.Lint(def...).Errors() <= lint.Lint(bare.setupAs(s.reg().Managers.Config).sides()...).Errors()
}

// BuiltInConfig: the procedure runs both managers on their built-in
// default configuration (no file).
func (s Spec) BuiltInConfig() bool { return s.configStyle() == BuiltIn }

// Raises: the procedure's switch to the external provider raises the
// Kubernetes version from N to N+1 (SwitchRaises, with N+1 newer than N).
func (s Spec) Raises() bool { return s.reg().Managers.SwitchRaises && s.From != s.To }

// Lint is the preflight: the procedure's configurations and flags.
func (s Spec) Lint() lint.Findings { return append(lint.Lint(s.Sides()...), s.policyFindings()...) }

// Predict is what the lint expects the managers to do with the migrated
// controllers: which run in two managers at once, which in none.
func (s Spec) Predict() lint.Prediction { return lint.Predict(s.Controllers(), s.Sides()...) }

// Controllers are the controllers a procedure migrates, by canonical name.
func (s Spec) Controllers() []string {
	return append(slices.Clone(lint.Migratable), s.reg().Also...)
}

func (s Spec) migrates(controller string) bool { return slices.Contains(s.Controllers(), controller) }

func (s Spec) version(v Version) string {
	if v == N1 {
		return s.To
	}
	return s.From
}

// ccmLeaderName is the migration lease the cloud-controller-manager's
// configuration names, "" when it has none.
func (st Setup) ccmLeaderName() string {
	if st.CCM == nil || st.CCM.Config == nil {
		return ""
	}
	return st.CCM.Config.LeaderName
}
