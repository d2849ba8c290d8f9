package migrate

import (
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// Sides are the managers a procedure runs, set up as its steps set them
// up: what the preflight lint checks.
func (s Spec) Sides() []lint.Side {
	side := func(component, version, cloud string, cfg *lmconfig.Config) lint.Side {
		sd := lint.Side{Component: component, Version: version, CloudProvider: cloud, LeaderMigration: true, AllocateNodeCIDRs: true}
		if component == lmconfig.CCM && s.Procedure == NodeIPAM {
			sd.Controllers = ccmNodeIPAMControllers
		}
		if cfg != nil {
			sd.Config, sd.ConfigPath = cfg, component+":"+lmConfigPath
		}
		return sd
	}
	switch s.Procedure {
	case RKE2, RKE:
		cfg := s.lmConfig(lmconfig.Wildcard)
		return []lint.Side{side(lmconfig.KCM, s.From, cloudcluster.ProviderName, cfg), side(lmconfig.CCM, s.From, "", cfg)}
	case DefaultConfig:
		return []lint.Side{side(lmconfig.KCM, s.From, cloudcluster.ProviderName, nil), side(lmconfig.CCM, s.To, "", nil),
			{Component: lmconfig.KCM, Version: s.To, AllocateNodeCIDRs: true}}
	default:
		n1 := lint.Side{Component: lmconfig.KCM, Version: s.To, AllocateNodeCIDRs: true}
		if s.Procedure == NodeIPAM {
			n1.Controllers = kcmNoNodeIPAM
		}
		if s.mistaken(MistakeN1KCMWithLM) {
			n1.LeaderMigration, n1.Config, n1.ConfigPath = true, s.ccmConfig(), lmconfig.KCM+":"+lmConfigPath
		}
		ccm := side(lmconfig.CCM, s.To, "", s.ccmConfig())
		if s.mistaken(MistakeCCMWithoutLM) {
			ccm = lint.Side{Component: lmconfig.CCM, Version: s.To, AllocateNodeCIDRs: true}
		}
		sides := []lint.Side{side(lmconfig.KCM, s.From, cloudcluster.ProviderName, s.lmConfig(lmconfig.KCM)), ccm, n1}
		if s.mistaken(MistakeNoCCM) {
			sides = []lint.Side{sides[0], n1}
		}
		return sides
	}
}

// Lint is the preflight: the procedure's configurations and flags.
func (s Spec) Lint() lint.Findings { return lint.Lint(s.Sides()...) }
