package migrate

import (
	"context"
	"fmt"
	"time"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// RollbackSteps are the task doc's rollback: version-N control planes with
// leader migration on their kube-controller-manager replace the N+1 ones,
// one at a time, while the N+1 cloud-controller-managers still take part.
// With the Disable variant the forward run removed leader migration from
// them, and it is re-enabled first.
func RollbackSteps(s Spec) []Step {
	steps := []Step{GrantStep(s, s.Provider().CCMUser)}
	if s.Variant.Disable {
		steps = append(steps, reenableStep(s))
	}
	steps = append(steps, restoreNConfigStep(s))
	for i := 1; i <= s.ControlPlanes; i++ {
		steps = append(steps, addNStep(s, i), removeN1Step(s, i))
	}
	return append(steps, SettleStep(s, lmconfig.KCM))
}

func restoreNConfigStep(s Spec) Step {
	plan := []Item{{Kind: File, Title: "ClusterConfiguration changes (kubectl -n kube-system edit configmap kubeadm-config)",
		Body: "kubernetesVersion: " + s.From + "\ncontrollerManager:\n  extraArgs:       # the version-" + s.From + " ones (cloud-provider, cloud-config, ...) plus\n    enable-leader-migration: \"true\"\n    leader-migration-config: " + LMConfigPath + "\n  extraVolumes:    # plus\n  - name: " + lmVolume + "\n    hostPath: " + LMConfigPath + "\n    mountPath: " + LMConfigPath + "\n    readOnly: true\n    pathType: File\n"}}
	if len(s.KCMArgs) > 0 {
		plan = append(plan, Item{Kind: File, Title: "ClusterConfiguration, your kube-controller-manager flags", Body: extraArgsYAML(s.KCMArgs)})
	}
	return Step{
		Name:  "restore-n-cluster-configuration",
		Title: "Restore kubeadm's version-" + s.From + " ClusterConfiguration, with leader migration on kube-controller-manager",
		Plan:  plan,
		Done: func(ctx context.Context, e *Env) (bool, error) {
			_, c, err := e.readClusterConfig(ctx)
			if err != nil {
				return false, err
			}
			return c["kubernetesVersion"] == s.From && c.arg("enable-leader-migration") == "true", nil
		},
		Do: func(ctx context.Context, e *Env) error {
			saved, err := e.savedClusterConfig(ctx, s.From)
			if err != nil {
				return err
			}
			saved.setArg("enable-leader-migration", "true")
			saved.setArgs(s.KCMArgs)
			if s.KCMFile() {
				saved.setArg("leader-migration-config", LMConfigPath)
				saved.setVolume(lmVolume, LMConfigPath)
			}
			cm, _, err := e.readClusterConfig(ctx)
			if err != nil {
				return err
			}
			return e.writeClusterConfig(ctx, cm, saved)
		},
	}
}

func addNStep(s Spec, i int) Step {
	return Step{
		Name:  fmt.Sprintf("add-n-control-plane-%d", i),
		Title: fmt.Sprintf("Add version-%s control plane %d of %d with leader migration on kube-controller-manager", s.From, i, s.ControlPlanes),
		Plan:  nPlan(s),
		Done:  atLeast(s.NSide(), i),
		Do: func(ctx context.Context, e *Env) error {
			_, err := e.Cluster.AddNode(ctx, kindcluster.AddNodeOptions{
				Role: kindcluster.RoleControlPlane, Kubernetes: s.From, Wait: s.Intervals.Of(IntervalJoin),
				KubeletArgs: nKubelet(s),
				Files:       nFiles(s),
			})
			return err
		},
		Wait: Wait{Name: "every version-" + s.From + " kube-controller-manager Ready", Timeout: s.Intervals.Of(IntervalControlPlane),
			Until: func(ctx context.Context, e *Env) (bool, error) {
				return e.everyNode(ctx, s.NSide(), func(node string) (bool, error) {
					return e.staticPodRunning(ctx, node, lmconfig.KCM, time.Time{})
				})
			}},
	}
}

// nFiles are what a version-N control plane joins with: its
// kube-controller-manager's configuration, when it reads a file.
func nFiles(s Spec) map[string]string {
	if cfg := s.setup().KCM.Config; cfg != nil {
		return map[string]string{LMConfigPath: cfg.YAML()}
	}
	return nil
}

// nKubelet are the flags a version-N control plane's kubelet joins with:
// the in-tree provider's.
func nKubelet(s Spec) map[string]string {
	return map[string]string{"cloud-provider": s.Provider().CloudProvider, "cloud-config": s.Provider().CloudConfigPath}
}

func nPlan(s Spec) []Item {
	plan := []Item{{Kind: Command, Body: "kubeadm join <endpoint> --control-plane ...   # a node of " + s.From + "; " + kubeletFlags(nKubelet(s))}}
	if f, ok := nFiles(s)[LMConfigPath]; ok {
		plan = append(plan, Item{Kind: File, Title: LMConfigPath, Body: f})
	}
	return plan
}

func removeN1Step(s Spec, i int) Step {
	return Step{
		Name:  fmt.Sprintf("remove-n1-control-plane-%d", i),
		Title: fmt.Sprintf("Remove version-%s control plane %d of %d", s.To, i, s.ControlPlanes),
		Plan:  []Item{{Kind: Command, Body: "# as remove-n-control-plane, for a version-" + s.To + " control plane (leaders last)"}},
		Done:  atMost(s.n1Side(), s.ControlPlanes-i),
		Do: func(ctx context.Context, e *Env) error {
			node, err := e.nextAt(ctx, s.n1Side(), "remove")
			if err != nil {
				return err
			}
			return e.removeNode(ctx, node)
		},
		Wait: Wait{Name: "each migrated controller running in exactly one manager", Timeout: s.Intervals.Of(IntervalSingleOwner), Until: waitSingleOwner},
		// A manager stopped to hand its main lease over is started again
		// when the removal fails: a re-run then finds the node whole.
		Undo: undoRemoval(s.n1Side()),
	}
}

// reenableStep is the task doc's "To re-enable Leader Migration" before a
// rollback: on every version-N+1 control plane the configuration file
// again, then the cloud-controller-manager with its mount and flags, one
// node at a time. Without it the managers of the rollback's version-N
// control planes would run the controllers beside a manager that no
// longer takes part.
func reenableStep(s Spec) Step {
	cfg := s.setup().CCM.Config
	var plan []Item
	if cfg != nil {
		plan = append(plan, Item{Kind: File, Title: LMConfigPath + " (on each version-" + s.To + " control plane, before its manager restarts)", Body: cfg.YAML()})
	}
	plan = append(plan, FlagsPlan(lmconfig.CCM, "add back, and mount "+LMConfigPath+" read-only", LMFlags(cfg != nil)...))
	st := RollStep(s, "re-enable-leader-migration", "Re-enable leader migration on every cloud-controller-manager, one node at a time, before rolling back",
		s.n1Side(), lmconfig.CCM, EnableLM(cfg != nil, nil), plan, WaitOwner(lmconfig.CCM))
	roll := st.Do
	st.Do = func(ctx context.Context, e *Env) error {
		if err := e.writeN1Config(ctx, cfg); err != nil {
			return err
		}
		return roll(ctx, e)
	}
	return st
}

// writeN1Config puts the cloud-controller-manager's configuration on every
// version-N+1 control plane (none for the built-in default).
func (e *Env) writeN1Config(ctx context.Context, cfg *lmconfig.Config) error {
	if cfg == nil {
		return nil
	}
	cps, err := e.controlPlanes(ctx)
	if err != nil {
		return err
	}
	for _, cp := range onSide(cps, e.Spec.n1Side()) {
		if err := e.Cluster.WriteFile(ctx, cp.Name, LMConfigPath, cfg.YAML()); err != nil {
			return fmt.Errorf("writing %s on %s: %w", LMConfigPath, cp.Name, err)
		}
	}
	return nil
}
