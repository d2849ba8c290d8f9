// Package rke is Rancher's RKE (cluster.yml) runbook for moving the AWS
// cloud controllers out of tree.
package rke

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

func init() {
	migrate.Register(migrate.Registration{Name: migrate.RKE, Source: Source, Order: 30, Flavours: []string{"external", "external-aws"},
		Variants: migrate.Variant{Disable: true, CCMLast: true},
		Managers: migrate.Managers{Config: migrate.Wildcard, FollowsDefault: true, CCMAt: migrate.N1, SwitchRaises: true, CCMForms: migrate.ChartForms,
			SwitchNamesFromMetadata: []string{"external-aws"}}, Steps: Steps})
}

// Source is the runbook the procedure follows.
const Source = "Rancher: Migrating Amazon/Azure In-tree to Out-of-tree (RKE)"

// Steps map the RKE1 runbook (cluster.yml) onto the kind cluster. `rke up`
// reconfigures and uncordons node by node, so there is no separate
// uncordon. external-aws with useInstanceMetadataHostname sets the kubelet's
// hostname-override from the instance metadata's hostname: the name the
// kubelet had (on an aws cluster, the private DNS name kubeadm gave it; on
// the simulated cloud, its hostname), which the switch keeps.
func Steps(s migrate.Spec) *migrate.Procedure {
	enable := []migrate.Item{
		{Kind: migrate.Rancher, Title: "cluster.yml", Body: rkeExtraArgs(lmArgs(s), lmBinds(s))},
		{Kind: migrate.Rancher, Title: "cluster.yml: unchanged at this step", Body: "cloud_provider:\n  name: aws\n"},
		{Kind: migrate.Note, Body: s.OwnConfigNote(defaultNote(s))},
	}
	enable = append(enable, s.KCMArgsPlan()...)
	if s.Flavour == "external-aws" {
		enable = append(enable, migrate.Item{Kind: migrate.Note, Body: "useInstanceMetadataHostname: at the switch each kubelet's --hostname-override is set to its instance metadata's hostname (on --provider aws, asked of the metadata service on the node; on the simulated provider, which serves none, each kubelet keeps its name)."})
	}
	p := &migrate.Procedure{
		Title: fmt.Sprintf("RKE runbook (%s): cloud controllers from kube-controller-manager %s to the %s chart", s.Flavour, s.From, s.CCMWorkload()),
		Steps: slices.Concat([]migrate.Step{migrate.GrantStep(s, s.CCMRef().ServiceAccount)}, migrate.WriteConfigSteps(s),
			[]migrate.Step{migrate.RollStep(s, "enable-leader-migration", "Add enable-leader-migration to services.kube-controller.extra_args (rke up), one node at a time",
				s.NSide(), lmconfig.KCM, migrate.EnableLM(s.KCMFile(), s.KCMArgs), enable, migrate.WaitOwner(lmconfig.KCM)),
				migrate.CordonStep(true)},
			migrate.DeployAndSwitch(s, migrate.DeployCCMStep(s), migrate.SwitchStep(s, true,
				migrate.Item{Kind: migrate.Rancher, Title: "cluster.yml", Body: kubernetesVersion(s) + rkeCloudProvider(s.Flavour, s.SwitchKeepsNodeNames())},
				migrate.Item{Kind: migrate.Rancher, Title: "cluster.yml: remove", Body: rkeExtraArgs(lmArgs(s), lmBinds(s))},
				migrate.Item{Kind: migrate.Command, Body: "rke up --config cluster.yml"})),
			[]migrate.Step{
				migrate.RolloutStep(s),
				migrate.SettleStep(s, lmconfig.CCM)},
		),
	}
	if s.Variant.Disable {
		p.Steps = append(p.Steps, migrate.CCMWorkloadDisableStep(s))
	}
	return p
}

// defaultNote says whether the plan follows the runbook's built-in default
// configuration as written, from the lint's facts for the versions.
func defaultNote(s migrate.Spec) string {
	if s.BuiltInConfig() {
		return "As for rke2: the runbook's built-in default is followed as written (on these versions it names exactly what both managers filter on), and the lease RBAC the runbook omits is granted first."
	}
	return "As for rke2: a configuration file with " + s.FileNames() + " replaces the runbook's built-in default, and the lease RBAC the runbook omits is granted first."
}

// lmArgs and lmBinds are kube-controller-manager's leader-migration
// arguments and bind mounts: a file's only where it reads one.
func lmArgs(s migrate.Spec) map[string]string {
	if !s.KCMFile() {
		return map[string]string{"enable-leader-migration": "true"}
	}
	return map[string]string{"enable-leader-migration": "true", "leader-migration-config": migrate.LMConfigPath}
}

func lmBinds(s migrate.Spec) []string {
	if !s.KCMFile() {
		return nil
	}
	return []string{migrate.LMConfigPath + ":" + migrate.LMConfigPath + ":ro"}
}

// kubernetesVersion is cluster.yml's version when the switch raises it
// (the runbooks' "if you're upgrading" step), "" when it does not.
func kubernetesVersion(s migrate.Spec) string {
	if !s.Raises() {
		return ""
	}
	return "kubernetes_version: " + s.To + "   # as your RKE names its release of it (" + s.To + "-rancher1-1, …)\n"
}

// The RKE cluster.yml each step stands for.

func rkeExtraArgs(args map[string]string, binds []string) string {
	var b strings.Builder
	b.WriteString("services:\n  kube-controller:\n    extra_args:\n")
	for _, k := range []string{"enable-leader-migration", "leader-migration-config"} {
		if v, ok := args[k]; ok {
			b.WriteString("      " + k + ": \"" + v + "\"\n")
		}
	}
	if len(binds) > 0 {
		b.WriteString("    extra_binds:\n")
		for _, m := range binds {
			b.WriteString("      - \"" + m + "\"\n")
		}
	}
	return b.String()
}

func rkeCloudProvider(flavour string, metadataHostname bool) string {
	if flavour == "external-aws" {
		return fmt.Sprintf("cloud_provider:\n  name: external-aws\n  useInstanceMetadataHostname: %t\n", metadataHostname)
	}
	return "cloud_provider:\n  name: external\n"
}
