package migrate

import (
	"fmt"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

const rkeSource = "Rancher: Migrating Amazon/Azure In-tree to Out-of-tree (RKE)"

// rke maps the RKE1 runbook (cluster.yml) onto the kind cluster. `rke up`
// reconfigures and uncordons node by node, so there is no separate
// uncordon. external-aws with useInstanceMetadataHostname sets the kubelet's
// and kube-proxy's hostname-override from instance metadata; kind node names
// already are their hostnames, which the simulated cloud reports as the
// instance hostname, so it changes nothing here.
func rke(s Spec) *Procedure {
	enable := []Item{
		{Kind: Rancher, Title: "cluster.yml", Body: rkeExtraArgs(map[string]string{"enable-leader-migration": "true", "leader-migration-config": LMConfigPath}, []string{LMConfigPath + ":" + LMConfigPath + ":ro"})},
		{Kind: Rancher, Title: "cluster.yml: unchanged at this step", Body: "cloud_provider:\n  name: aws\n"},
		{Kind: Note, Body: s.OwnConfigNote("As for rke2: a configuration file with the canonical names replaces the runbook's built-in default, and the lease RBAC the runbook omits is granted first.")},
	}
	enable = append(enable, s.KCMArgsPlan()...)
	if s.Flavour == "external-aws" {
		enable = append(enable, Item{Kind: Note, Body: "useInstanceMetadataHostname: kind node names equal their hostnames and the simulated cloud's instance hostnames, so no hostname-override is needed."})
	}
	p := &Procedure{
		Title: fmt.Sprintf("RKE runbook (%s): cloud controllers from kube-controller-manager %s to the %s chart", s.Flavour, s.From, s.CCMWorkload()),
		Steps: append(append([]Step{GrantStep(s, s.CCMRef().ServiceAccount)}, WriteConfigSteps(s)...),
			RollStep(s, "enable-leader-migration", "Add enable-leader-migration to services.kube-controller.extra_args (rke up), one node at a time",
				s.NSide(), lmconfig.KCM, EnableLM(s.KCMFile(), s.KCMArgs), enable, WaitOwner(lmconfig.KCM)),
			CordonStep(true),
			DeployCCMStep(s),
			SwitchStep(s, true,
				Item{Kind: Rancher, Title: "cluster.yml", Body: rkeCloudProvider(s.Flavour)},
				Item{Kind: Rancher, Title: "cluster.yml: remove", Body: rkeExtraArgs(map[string]string{"enable-leader-migration": "true", "leader-migration-config": LMConfigPath}, []string{LMConfigPath + ":" + LMConfigPath + ":ro"})},
				Item{Kind: Command, Body: "rke up --config cluster.yml"}),
			RolloutStep(s),
			SettleStep(s, lmconfig.CCM),
		),
	}
	if s.Variant.Disable {
		p.Steps = append(p.Steps, CCMWorkloadDisableStep(s))
	}
	return p
}
