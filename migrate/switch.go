package migrate

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

// The switch to the external provider the Rancher runbooks, stop-start and
// KubeOne's migration share.

// SwitchStep is "change the cloud provider to external and remove leader
// migration from kube-controller-manager": RKE2 and RKE reconfigure node by
// node; uncordonEach is RKE's `rke up`, which uncordons each node after it.
// rancher is the runbook's configuration for the switch. A procedure whose
// switch raises the version replaces the control planes instead (raiseStep).
func SwitchStep(s Spec, uncordonEach bool, rancher ...Item) Step {
	if s.Raises() {
		return raiseStep(s, uncordonEach, rancher)
	}
	plan := append([]Item{{Kind: Command, Body: "# each control plane in turn: kube-controller-manager without --cloud-provider, --cloud-config and leader migration;\n# every kubelet: --cloud-provider=external"}}, rancher...)
	plan = append(plan, s.setup().Notes[switchKey]...)
	done := func(ctx context.Context, e *Env) (bool, error) {
		if ok, err := e.kubeletsExternal(ctx); !ok || err != nil {
			return ok, err
		}
		return e.everyNode(ctx, s.NSide(), func(node string) (bool, error) {
			changed, err := e.wouldChange(ctx, node, lmconfig.KCM, externalKCM)
			return !changed, err
		})
	}
	return Step{
		Name:  "switch-to-external",
		Title: "Switch every node to the external cloud provider, one node at a time",
		Plan:  plan,
		Done:  done,
		Do: func(ctx context.Context, e *Env) error {
			return e.switchToExternal(ctx, uncordonEach)
		},
		Wait: Wait{Name: "every node switched", Timeout: s.Intervals.Of(IntervalSwitch), Until: done},
	}
}

// kubeletsExternal: every node's kubelet runs with the external provider
// (a node whose instance is gone has none left to switch; one still
// joining has no flags yet, and is not).
func (e *Env) kubeletsExternal(ctx context.Context) (bool, error) {
	nodes, err := e.Cluster.Nodes()
	if err != nil {
		return false, err
	}
	for _, n := range nodes {
		ext, err := e.kubeletExternal(ctx, n.String())
		if err != nil && e.gone(ctx, n.String()) {
			continue
		}
		if err != nil || !ext {
			return false, nil
		}
	}
	return true, nil
}

// externalKCM is a kube-controller-manager of the same version with no
// cloud provider and no leader migration.
func externalKCM(p *corev1.Pod) {
	c := &p.Spec.Containers[0]
	for _, f := range []string{"cloud-provider", "cloud-config"} {
		c.Command = removeFlag(c.Command, f)
	}
	c.Command = removeFeatureGate(c.Command, "DisableCloudProviders")
	disableLM(p)
	removeMount(p, "cloud-config")
}

func (e *Env) switchToExternal(ctx context.Context, uncordonEach bool) error {
	cm, c, err := e.readClusterConfig(ctx)
	if err != nil {
		return err
	}
	c.toExternal(e.Spec.From)
	if err := e.writeClusterConfig(ctx, cm, c); err != nil {
		return err
	}
	cps, err := e.controlPlanes(ctx)
	if err != nil {
		return err
	}
	for _, cp := range e.leaderLast(ctx, cps) {
		if err := e.roll(ctx, cp.Name, lmconfig.KCM, externalKCM); err != nil {
			return err
		}
		if err := e.switchKubelet(ctx, cp.Name); err != nil {
			return err
		}
		if uncordonEach {
			if err := e.setNodeCordon(ctx, cp.Name, false); err != nil {
				return err
			}
		}
	}
	return e.switchWorkers(ctx)
}

// switchWorkers switches every worker's kubelet to the external provider.
// Workers come and go during the step (the load joins and terminates
// them): they are listed until every one listed has been dealt with.
func (e *Env) switchWorkers(ctx context.Context) error {
	seen := map[string]bool{}
	for {
		workers, err := e.workers()
		if err != nil {
			return err
		}
		pending := 0
		for _, w := range workers {
			if seen[w] {
				continue
			}
			seen[w], pending = true, pending+1
			if err := e.switchWorker(ctx, w); err != nil {
				return err
			}
		}
		if pending == 0 {
			return nil
		}
	}
}

// switchWorker switches a worker's kubelet to the external provider. A
// worker still joining has no kubelet flags yet: it is waited for. One
// whose instance is gone (terminated, or its join failed and it was
// removed) has no kubelet left to switch.
func (e *Env) switchWorker(ctx context.Context, w string) error {
	if err := e.waitJoined(ctx, w); err != nil {
		return err
	}
	err := e.switchKubelet(ctx, w)
	if err != nil && e.gone(ctx, w) {
		e.Logger.V(0).Infof("     %s is not running (instance terminated or removed): no kubelet to switch", w)
		return nil
	}
	return err
}

// waitJoined waits until a node's kubeadm join has written its kubelet
// flags, or the node is gone.
func (e *Env) waitJoined(ctx context.Context, node string) error {
	joined := func(ctx context.Context) (bool, error) {
		if _, err := e.Cluster.ReadFile(ctx, node, kubeletFlagsFile); err == nil {
			return true, nil
		}
		return e.gone(ctx, node), nil
	}
	if ok, _ := joined(ctx); ok {
		return nil
	}
	e.Logger.V(0).Infof("     %s is still joining: waiting for its kubelet flags", node)
	joinWait := e.Spec.Intervals.Of(IntervalWorkerJoin)
	if err := wait.PollUntilContextTimeout(ctx, 2*e.Poll, joinWait, false, joined); err != nil {
		return fmt.Errorf("node %s: no %s after %s (a join that never finished?): %w", node, kubeletFlagsFile, joinWait, err)
	}
	return nil
}
