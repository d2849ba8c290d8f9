// Package rke2 is Rancher's RKE2 runbook for moving the AWS or Azure cloud
// controllers out of tree.
package rke2

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

func init() {
	migrate.Register(migrate.Registration{Name: migrate.RKE2, Source: Source, Order: 20, Flavours: []string{"aws", "azure"},
		Variants: migrate.Variant{Disable: true, CCMLast: true},
		Managers: migrate.Managers{Config: migrate.Wildcard, FollowsDefault: true, CCMAt: migrate.N1, SwitchRaises: true,
			CCMForms: migrate.ChartForms, CCMHeld: heldByTheCordon}, Steps: Steps})
}

// heldByTheCordon: the control planes stay cordoned until every node is
// external, and a Deployment's pods wait for them (the AWS chart's
// DaemonSet tolerates the cordon and starts at once).
func heldByTheCordon(s migrate.Spec) bool { return s.CCMWorkload() == managers.Deployment }

// Source is the runbook the procedure follows.
const Source = "Rancher: Migrating Amazon/Azure In-tree to Out-of-tree (RKE2)"

// Steps map the RKE2 runbook onto the kind cluster. Leader migration uses
// the runbook's built-in default where the lint finds it safe on the
// versions, and otherwise a configuration file with '*' components (the
// default's intent, under the names the managers filter on; see
// default-config for the built-in one). With --to newer than --from the
// switch raises the version, as the runbook's "if upgrading" does.
func Steps(s migrate.Spec) *migrate.Procedure {
	p := &migrate.Procedure{
		Title: fmt.Sprintf("RKE2 runbook (%s): cloud controllers from kube-controller-manager %s to the %s chart", s.Flavour, s.From, s.CCMWorkload()),
		Steps: slices.Concat([]migrate.Step{migrate.GrantStep(s, s.CCMRef().ServiceAccount)}, migrate.WriteConfigSteps(s),
			[]migrate.Step{migrate.RollStep(s, "enable-leader-migration", "Add enable-leader-migration to every kube-controller-manager (machineSelectorConfig), one node at a time",
				s.NSide(), lmconfig.KCM, migrate.EnableLM(s.KCMFile(), s.KCMArgs), append(enableItems(s), s.KCMArgsPlan()...), migrate.WaitOwner(lmconfig.KCM)),
				migrate.CordonStep(true)},
			migrate.DeployAndSwitch(s, migrate.DeployCCMStep(s), migrate.SwitchStep(s, false,
				migrate.Item{Kind: migrate.Rancher, Title: "cluster YAML", Body: switchYAML(s)},
				migrate.Item{Kind: migrate.Rancher, Title: "cluster YAML: remove from machineSelectorConfig", Body: rke2MachineSelector(lmArgs(s), lmMounts(s))})),
			[]migrate.Step{
				migrate.CordonStep(false),
				migrate.RolloutStep(s),
				migrate.SettleStep(s, lmconfig.CCM)},
		),
	}
	if s.Variant.Disable {
		p.Steps = append(p.Steps, migrate.CCMWorkloadDisableStep(s))
	}
	return p
}

// enableItems are the runbook's configuration for enable-leader-migration
// and why it is (or is not) followed as written.
func enableItems(s migrate.Spec) []migrate.Item {
	items := []migrate.Item{{Kind: migrate.Rancher, Title: "cluster YAML", Body: rke2MachineSelector(lmArgs(s), lmMounts(s))}}
	if s.KCMFile() {
		items = append(items, migrate.Item{Kind: migrate.Rancher, Title: "cluster YAML: the configuration file", Body: rke2Files("leader-migration")})
	}
	return append(items,
		migrate.Item{Kind: migrate.Rancher, Title: "cluster YAML: unchanged at this step", Body: CloudProviderYAML(s.Flavour)},
		migrate.Item{Kind: migrate.Note, Body: s.OwnConfigNote(defaultNote(s) + " The runbook also has no RBAC step: without it kube-controller-manager cannot take the migration lease.")})
}

// defaultNote says whether the plan follows the runbook's built-in default
// configuration as written, and why, from the lint's facts for the
// versions.
func defaultNote(s migrate.Spec) string {
	if s.BuiltInConfig() {
		return "The runbook relies on the built-in default configuration (" + s.DefaultNames() + "): on these versions it names exactly what both managers filter on and the lint finds it safe, so this plan follows the runbook as written, with no file."
	}
	why := s.DefaultMisses()
	if why == "" {
		why = "the lint finds it unsafe on these versions (plan with --leader-migration-config kcm=default --leader-migration-config ccm=default says why)"
	}
	return "The runbook relies on the built-in default configuration; " + why + ", so this plan passes a file with " + s.FileNames() + "."
}

// lmArgs and lmMounts are kube-controller-manager's leader-migration
// arguments and mounts: a file's only where it reads one.
func lmArgs(s migrate.Spec) []string {
	if !s.KCMFile() {
		return []string{"enable-leader-migration"}
	}
	return migrate.LMFlagsRancher()
}

func lmMounts(s migrate.Spec) []string {
	if !s.KCMFile() {
		return nil
	}
	return []string{migrate.LMConfigPath + ":" + migrate.LMConfigPath + ":ro"}
}

// switchYAML is the runbook's switch: the external provider and, when it
// raises the version, the new one.
func switchYAML(s migrate.Spec) string {
	if !s.Raises() {
		return CloudProviderYAML("external")
	}
	return "spec:\n  kubernetesVersion: " + s.To + "   # as your Rancher names the RKE2 release of it (" + s.To + "+rke2r1, …)\n" +
		strings.TrimPrefix(CloudProviderYAML("external"), "spec:\n")
}

// The RKE2 cluster configuration each step stands for, so an operator can
// follow the plan on a real cluster.

func rke2MachineSelector(args []string, mounts []string) string {
	var b strings.Builder
	b.WriteString("spec:\n  rkeConfig:\n    machineSelectorConfig:\n      - config:\n          kube-controller-manager-arg:\n")
	for _, a := range args {
		b.WriteString("            - " + a + "\n")
	}
	if len(mounts) > 0 {
		b.WriteString("          kube-controller-manager-extra-mount:\n")
		for _, m := range mounts {
			b.WriteString("            - " + m + "\n")
		}
	}
	b.WriteString("        machineLabelSelector:\n          matchExpressions:\n            - key: rke.cattle.io/control-plane-role\n              operator: In\n              values:\n                - 'true'\n")
	return b.String()
}

func rke2Files(secret string) string {
	return "spec:\n  rkeConfig:\n    machineSelectorFiles:\n      - fileSources:\n          - secret:\n              name: " + secret +
		"\n              items:\n                - key: leadermigration.conf\n                  path: " + migrate.LMConfigPath +
		"\n        machineLabelSelector:\n          matchLabels:\n            rke.cattle.io/control-plane-role: 'true'\n"
}

// CloudProviderYAML is the RKE2 cluster configuration that names the cloud
// provider (machineGlobalConfig.cloud-provider-name).
func CloudProviderYAML(name string) string {
	return "spec:\n  rkeConfig:\n    machineGlobalConfig:\n      cloud-provider-name: " + name + "\n"
}
