package migrate

import (
	"fmt"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

const rke2Source = "Rancher: Migrating Amazon/Azure In-tree to Out-of-tree (RKE2)"

// rke2 maps the RKE2 runbook onto the kind cluster. Leader migration uses
// a configuration file with '*' components (the runbook's built-in default,
// with the canonical names the managers filter on; see default-config for
// the built-in one).
func rke2(s Spec) *Procedure {
	p := &Procedure{
		Title: fmt.Sprintf("RKE2 runbook (%s): cloud controllers from kube-controller-manager %s to the %s chart", s.Flavour, s.From, s.CCMWorkload()),
		Steps: append(append([]Step{GrantStep(s, s.CCMRef().ServiceAccount)}, WriteConfigSteps(s)...),
			RollStep(s, "enable-leader-migration", "Add enable-leader-migration to every kube-controller-manager (machineSelectorConfig), one node at a time",
				s.NSide(), lmconfig.KCM, EnableLM(s.KCMFile(), s.KCMArgs), append([]Item{
					{Kind: Rancher, Title: "cluster YAML", Body: rke2MachineSelector(LMFlagsRancher(), []string{LMConfigPath + ":" + LMConfigPath + ":ro"})},
					{Kind: Rancher, Title: "cluster YAML: the configuration file", Body: rke2Files("leader-migration")},
					{Kind: Rancher, Title: "cluster YAML: unchanged at this step", Body: rke2CloudProvider(s.Flavour)},
					{Kind: Note, Body: s.OwnConfigNote("The runbook relies on the built-in default configuration; two of its names (route-controller, service-controller) match no controller of " + s.From + ", so this plan passes a file with the canonical names. The runbook also has no RBAC step: without it kube-controller-manager cannot take the migration lease.")},
				}, s.KCMArgsPlan()...), WaitOwner(lmconfig.KCM)),
			CordonStep(true),
			DeployCCMStep(s),
			SwitchStep(s, false,
				Item{Kind: Rancher, Title: "cluster YAML", Body: rke2CloudProvider("external")},
				Item{Kind: Rancher, Title: "cluster YAML: remove from machineSelectorConfig", Body: rke2MachineSelector(LMFlagsRancher(), []string{LMConfigPath + ":" + LMConfigPath + ":ro"})}),
			CordonStep(false),
			RolloutStep(s),
			SettleStep(s, lmconfig.CCM),
		),
	}
	if s.Variant.Disable {
		p.Steps = append(p.Steps, CCMWorkloadDisableStep(s))
	}
	return p
}
