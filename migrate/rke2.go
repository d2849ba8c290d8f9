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
		Title: fmt.Sprintf("RKE2 runbook (%s): cloud controllers from kube-controller-manager %s to the %s chart", s.Flavour, s.From, s.ccmWorkload()),
		Steps: append(append([]Step{grantStep(s, s.ccmRef().ServiceAccount)}, writeConfigSteps(s)...),
			rollStep(s, "enable-leader-migration", "Add enable-leader-migration to every kube-controller-manager (machineSelectorConfig), one node at a time",
				s.nSide(), lmconfig.KCM, enableLM(s.kcmFile(), s.KCMArgs), append([]Item{
					{Kind: Rancher, Title: "cluster YAML", Body: rke2MachineSelector(lmFlagsRancher(), []string{lmConfigPath + ":" + lmConfigPath + ":ro"})},
					{Kind: Rancher, Title: "cluster YAML: the configuration file", Body: rke2Files("leader-migration")},
					{Kind: Rancher, Title: "cluster YAML: unchanged at this step", Body: rke2CloudProvider(s.Flavour)},
					{Kind: Note, Body: s.ownConfigNote("The runbook relies on the built-in default configuration; two of its names (route-controller, service-controller) match no controller of " + s.From + ", so this plan passes a file with the canonical names. The runbook also has no RBAC step: without it kube-controller-manager cannot take the migration lease.")},
				}, s.kcmArgsPlan()...), waitOwner(lmconfig.KCM)),
			cordonStep(true),
			deployCCMStep(s),
			switchStep(s, false,
				Item{Kind: Rancher, Title: "cluster YAML", Body: rke2CloudProvider("external")},
				Item{Kind: Rancher, Title: "cluster YAML: remove from machineSelectorConfig", Body: rke2MachineSelector(lmFlagsRancher(), []string{lmConfigPath + ":" + lmConfigPath + ":ro"})}),
			cordonStep(false),
			rolloutStep(s),
			settleStep(s, lmconfig.CCM),
		),
	}
	if s.Variant.Disable {
		p.Steps = append(p.Steps, ccmWorkloadDisableStep(s))
	}
	return p
}
