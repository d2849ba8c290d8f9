package migrate

import (
	"context"
	"fmt"
)

// The switch that raises the Kubernetes version (Rancher's runbooks: "if
// upgrading, set the Kubernetes version as well"). Rancher upgrades each
// node where it stands; on kind a node's kubelet is its node image's, so
// the control planes are replaced as the task doc replaces them: a
// version-N+1 control plane joins, external, and a version-N one leaves,
// leaders last. Workers keep version N (a kubelet may be older than its
// control plane) and switch their kubelets where they stand.

// raiseStep is SwitchStep when the switch raises the version.
func raiseStep(s Spec, uncordonEach bool, rancher []Item) Step {
	plan := append(raisePlan(s, !uncordonEach), rancher...)
	plan = append(plan, s.setup().Notes[switchKey]...)
	done := func(ctx context.Context, e *Env) (bool, error) {
		if n, err := e.countAt(ctx, s.NSide()); n > 0 || err != nil {
			return false, err
		}
		return e.kubeletsExternal(ctx)
	}
	return Step{
		Name:  "switch-to-external",
		Title: "Switch every node to the external cloud provider and raise Kubernetes to " + s.To + ": version-" + s.To + " control planes replace the version-" + s.From + " ones, one at a time",
		Plan:  plan,
		Done:  done,
		Do: func(ctx context.Context, e *Env) error {
			return e.raiseToExternal(ctx, !uncordonEach)
		},
		Wait: Wait{Name: "every node switched", Timeout: s.Intervals.Of(IntervalSwitch), Until: done},
		// A manager stopped to hand its main lease over is started again
		// when a removal fails: a re-run then finds the node whole.
		Undo: undoRemoval(s.NSide()),
	}
}

// raisePlan is what the raising switch does to each node, and the N+1
// configuration kubeadm renders the new control planes from.
func raisePlan(s Spec, cordoned bool) []Item {
	plan := []Item{
		{Kind: Command, Body: "# each control plane in turn, leaders last: Kubernetes " + s.To + ", kube-controller-manager without --cloud-provider,\n" +
			"#   --cloud-config and leader migration, kubelet --cloud-provider=external. On kind a version-" + s.To + "\n" +
			"#   control plane joins and a version-" + s.From + " one leaves (a kind node's kubelet is its node image's):\n" +
			"kubeadm join <endpoint> --control-plane ...   # a node of " + s.To + "; " + kubeletFlags(s.n1Kubelet(cordoned)) + "\n" +
			"# then remove a version-" + s.From + " control plane whose managers hold no lease, as remove-n-control-plane does\n" +
			"# every worker: kubelet --cloud-provider=external (it stays " + s.From + ": a kubelet may be older than its control plane)"},
		{Kind: File, Title: "/etc/kubernetes/patches/kubeletconfiguration+merge.yaml (kubeadm join --patches)", Body: kubeletNoInTreeGates},
		{Kind: Command, Body: "kubectl -n kube-system edit configmap kubeadm-config   # ClusterConfiguration, before the first join:"},
	}
	plan = append(plan, n1ConfigPlan(s)...)
	return append(plan, cordonAtJoin(cordoned))
}

// cordonAtJoin says how a joining control plane keeps the runbook's cordon.
func cordonAtJoin(cordoned bool) Item {
	if cordoned {
		return Item{Kind: Note, Body: "Each new control plane registers cordoned (--register-schedulable=false): the runbook keeps the control planes cordoned until uncordon-control-planes, and a chart's pods held by the cordon must not start on the first one to join."}
	}
	return Item{Kind: Note, Body: "`rke up` uncordons each node once it is upgraded: each new control plane registers schedulable."}
}

// raiseToExternal is the raising switch: the N+1 ClusterConfiguration, the
// control planes replaced, then the workers' kubelets switched.
func (e *Env) raiseToExternal(ctx context.Context, cordoned bool) error {
	if err := e.toN1ClusterConfig(ctx); err != nil {
		return err
	}
	if err := e.replaceControlPlanes(ctx, cordoned); err != nil {
		return err
	}
	return e.switchWorkers(ctx)
}

// replaceControlPlanes joins a version-N+1 control plane whenever the
// control plane has room for one, and otherwise removes the version-N one
// whose managers hold no lease, until only N+1 ones are left: what a
// re-run finds done it skips.
func (e *Env) replaceControlPlanes(ctx context.Context, cordoned bool) error {
	s := e.Spec
	// Each round joins or removes one node: 2N rounds replace N.
	for range 2*s.ControlPlanes + 1 {
		cps, err := e.controlPlanes(ctx)
		if err != nil {
			return err
		}
		old, now := len(onSide(cps, s.NSide())), len(onSide(cps, s.n1Side()))
		switch {
		case old == 0 && now >= s.ControlPlanes:
			return nil
		case old+now <= s.ControlPlanes:
			if _, err := e.addN1ControlPlane(ctx, cordoned); err != nil {
				return err
			}
		default:
			node, err := e.nextAt(ctx, s.NSide(), "replace")
			if err != nil {
				return err
			}
			if err := e.removeNode(ctx, node); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("the control planes are not all version %s after replacing %d of them", s.To, s.ControlPlanes)
}

// loadCCMImageSteps load version N+1's cloud-controller-manager image into
// the version-N control planes when the switch raises the version: the
// chart runs N+1's manager, on them too until they are replaced. None when
// it does not.
func loadCCMImageSteps(s Spec) []Step {
	if !s.Raises() {
		return nil
	}
	return []Step{loadImagesStep(s, "cloud-controller-manager image", []string{s.Provider().Forms.Image(s.To)})}
}
