package migrate

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/providers"
)

// The steps the RKE2 and RKE runbooks share.

// chartWorkloads is each flavour's chart shape: the AWS chart is a
// DaemonSet on the control planes, the Azure chart a Deployment.
var chartWorkloads = map[string]string{
	"aws": managers.DaemonSet, "external-aws": managers.DaemonSet,
	"azure": managers.Deployment, "external": managers.Deployment,
}

func LMFlagsRancher() []string {
	return []string{"enable-leader-migration", "leader-migration-config=" + LMConfigPath}
}

func CordonStep(cordon bool) Step {
	name, verb := "cordon-control-planes", "cordon"
	if !cordon {
		name, verb = "uncordon-control-planes", "uncordon"
	}
	return Step{
		Name:  name,
		Title: "kubectl " + verb + " the control-plane nodes",
		Plan:  []Item{{Kind: Command, Body: `kubectl ` + verb + ` -l "node-role.kubernetes.io/control-plane"`}},
		Done:  func(ctx context.Context, e *Env) (bool, error) { return e.cordoned(ctx, cordon) },
		Do:    func(ctx context.Context, e *Env) error { return e.setCordon(ctx, cordon) },
	}
}

// ccmManifest is the chart, rendered, or the user's manifest as applied:
// with leader migration (lm) as the setup has it, or without. changes are
// what handover changed in the user's manifest, and why.
func (s Spec) ccmManifest(lm bool) (manifest string, changes []string) {
	cfg := s.setup().CCM.Config
	var flags []string
	config := ""
	switch {
	case lm && cfg == nil:
		flags = LMFlags(false)
	case lm:
		flags, config = LMFlags(true), cfg.YAML()
	}
	flags = append(flags, s.CCMArgs...)
	if m := s.CCMManifest; m != nil {
		return m.render(s.Provider(), s.ccmVersion(), s.Cluster, s.PodSubnet, flags, config)
	}
	return s.Provider().Forms.Workload(providers.WorkloadInput{Form: s.CCMWorkload(), Replicas: s.ccmReplicas(), NoNodeManager: s.setup().NoNodeManager,
		Version: s.ccmVersion(), Cluster: s.Cluster, PodSubnet: s.PodSubnet, Config: config, ConfigPath: LMConfigPath, Args: flags}), nil
}

// manifestPlan shows a manifest and, for the user's, what was changed.
func (s Spec) manifestPlan(title string, manifest string, changes []string) []Item {
	if s.CCMManifest == nil {
		return []Item{{Kind: File, Title: title, Body: manifest}}
	}
	items := []Item{{Kind: File, Title: "your " + s.CCMManifest.Path + ", as applied (kubectl apply -f)", Body: manifest}}
	if len(changes) > 0 {
		items = append(items, Item{Kind: Note, Body: "Changed from your manifest, and why:\n- " + strings.Join(changes, "\n- ")})
	}
	return items
}

// DeployCCMStep installs the chart (or the user's manifest) as the Setup
// has the cloud-controller-manager: with leader migration, granted the
// migration lease again after the install, or, in a procedure without
// leader migration, as it is.
func DeployCCMStep(s Spec) Step {
	st := s.setup()
	lm := st.CCM.LeaderMigration
	manifest, changes := s.ccmManifest(lm)
	ref := s.CCMRef()
	plan := s.manifestPlan("cloud-controller-manager chart, rendered (kubectl apply -f)", manifest, changes)
	title := "Install the cloud-controller-manager (" + s.CCMWorkload() + ") with --enable-leader-migration"
	if !lm {
		title = "Install the cloud-controller-manager (" + s.CCMWorkload() + ") without leader migration"
	}
	if st.GrantCCM {
		plan = append(plan, Item{Kind: Command, Body: grantPatchCommand(s.Provider().CCMLeaderLockingRole, s.LeaderName)},
			Item{Kind: Note, Body: "Installing the chart re-applies its leader-locking Role and with it drops the migration-lease rule granted in step 1: grant it again, or the cloud-controller-manager never takes the migration lease and, once kube-controller-manager loses its cloud provider, no manager runs the cloud controllers."})
	}
	if lm {
		plan = append(plan, cordonNote(s))
	}
	plan = append(plan, st.Notes[deployKey]...)
	var pre func(context.Context, *Env) error // nothing to check without a grant
	do := func(ctx context.Context, e *Env) error { return e.Cluster.Apply(ctx, manifest) }
	wait := Wait{Name: "the cloud-controller-manager " + s.CCMWorkload() + " created", Timeout: s.Intervals.Of(IntervalRollout),
		Until: func(ctx context.Context, e *Env) (bool, error) { return e.ccmWorkloadExists(ctx, s) }}
	if st.GrantCCM {
		pre = func(ctx context.Context, e *Env) error {
			ok, err := leaseGranted(ref.ServiceAccount)(ctx, e)
			if err == nil && !ok {
				err = fmt.Errorf("the cloud-controller-manager ServiceAccount may not take the migration lease %s (run step grant-migration-lease)", s.LeaderName)
			}
			return err
		}
		// The chart ships the leader-locking Role; applying it replaces the
		// migration-lease rule granted earlier, which must be added again or
		// the cloud-controller-manager can never take the migration lease.
		apply := do
		do = func(ctx context.Context, e *Env) error {
			if err := apply(ctx, e); err != nil {
				return err
			}
			return e.grantLease(ctx, s.Provider().CCMLeaderLockingRole, e.Spec.LeaderName)
		}
		wait = Wait{Name: "the cloud-controller-manager still allowed the migration lease", Timeout: s.Intervals.Of(IntervalLeaseGrant), Until: leaseGranted(ref.ServiceAccount)}
	}
	return Step{
		Name:  "deploy-ccm",
		Title: title,
		Plan:  plan,
		Done:  func(ctx context.Context, e *Env) (bool, error) { return e.ccmWorkloadExists(ctx, s) },
		Pre:   pre,
		Do:    do,
		Wait:  wait,
	}
}

// cordonNote says what the runbooks' cordon does to the chart's workload.
func cordonNote(s Spec) Item {
	if s.CCMWorkload() == managers.Deployment {
		return Item{Kind: Note, Body: "Azure's chart adds a cloud-node-manager DaemonSet that initialises each node; the simulated cloud's cloud-node-controller runs inside the Deployment instead. The Deployment's pods stay Pending on the cordoned control planes until they are uncordoned."}
	}
	return Item{Kind: Note, Body: "DaemonSet pods tolerate node.kubernetes.io/unschedulable, so cordoning does not hold the AWS chart back: its managers start at once, while every kube-controller-manager still runs the in-tree provider."}
}

func (e *Env) ccmWorkloadExists(ctx context.Context, s Spec) (bool, error) {
	var err error
	ref := s.CCMRef()
	if s.CCMWorkload() == managers.Deployment {
		_, err = e.Client.AppsV1().Deployments(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	} else {
		_, err = e.Client.AppsV1().DaemonSets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	}
	if err != nil {
		return false, client404(err)
	}
	return true, nil
}

func RolloutStep(s Spec) Step {
	kind := "daemonset"
	if s.CCMWorkload() == managers.Deployment {
		kind = "deployment"
	}
	ready := func(ctx context.Context, e *Env) (bool, error) { return e.ccmRolledOut(ctx, s) }
	return Step{
		Name:  "rollout-status",
		Title: "Wait for the cloud-controller-manager " + kind + " to roll out",
		Plan:  []Item{{Kind: Command, Body: shellJoin("kubectl", "rollout", "status", kind, "-n", s.CCMRef().Namespace, s.CCMRef().Name)}},
		Done:  ready,
		Wait:  Wait{Name: "cloud-controller-manager " + kind + " available on every control plane", Timeout: s.Intervals.Of(IntervalRollout), Until: ready},
	}
}

func (e *Env) ccmRolledOut(ctx context.Context, s Spec) (bool, error) {
	ref := s.CCMRef()
	if s.CCMWorkload() == managers.Deployment {
		d, err := e.Client.AppsV1().Deployments(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return false, client404(err)
		}
		return d.Status.ObservedGeneration >= d.Generation && d.Status.UpdatedReplicas == *d.Spec.Replicas && d.Status.AvailableReplicas == *d.Spec.Replicas, nil
	}
	ds, err := e.Client.AppsV1().DaemonSets(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	if err != nil {
		return false, client404(err)
	}
	st := ds.Status
	return st.ObservedGeneration >= ds.Generation && st.DesiredNumberScheduled > 0 && st.UpdatedNumberScheduled == st.DesiredNumberScheduled && st.NumberAvailable == st.DesiredNumberScheduled, nil
}

// stopped is true when node's container is known not to be running (the
// load or a fault terminated its instance); false when it runs or when
// that cannot be told.
func (e *Env) stopped(ctx context.Context, node string) bool {
	up, err := e.Cluster.Running(ctx, node)
	return err == nil && !up
}

// gone is true when node's container is stopped or no longer in the
// cluster (a failed join removes it).
func (e *Env) gone(ctx context.Context, node string) bool {
	if e.stopped(ctx, node) {
		return true
	}
	nodes, err := e.Cluster.Nodes()
	if err != nil {
		return false
	}
	for _, n := range nodes {
		if n.String() == node {
			return false
		}
	}
	return true
}

// CCMWorkloadDisableStep removes leader migration from the chart's
// cloud-controller-manager once it runs alone (the runbooks' optional step).
func CCMWorkloadDisableStep(s Spec) Step {
	manifest, changes := s.ccmManifest(false)
	return Step{
		Name:  "remove-ccm-leader-migration",
		Title: "Remove --enable-leader-migration from the cloud-controller-manager chart",
		Plan:  s.manifestPlan("cloud-controller-manager chart without leader migration (kubectl apply -f)", manifest, changes),
		Do: func(ctx context.Context, e *Env) error {
			if err := e.Cluster.Apply(ctx, manifest); err != nil {
				return err
			}
			return client404(e.Client.CoreV1().ConfigMaps(s.CCMRef().Namespace).Delete(ctx, s.Provider().LeaderMigrationConfigMap, deleteOpts))
		},
		Wait: Wait{Name: "rolled out without leader migration", Timeout: s.Intervals.Of(IntervalRollout),
			Until: func(ctx context.Context, e *Env) (bool, error) {
				ok, err := e.ccmRolledOut(ctx, s)
				if !ok || err != nil {
					return ok, err
				}
				return WaitOwner(lmconfig.CCM)(ctx, e)
			}},
	}
}

var deleteOpts = metav1.DeleteOptions{}

// DeployAndSwitch are the runbooks' deploy-ccm and switch-to-external steps
// in their order (version N+1's manager image loaded first where the switch
// raises the version), or, with the CCMLast variant, the switch first.
func DeployAndSwitch(s Spec, deploy, sw Step) []Step {
	if !s.Variant.CCMLast {
		return append(loadCCMImageSteps(s), deploy, sw)
	}
	deploy.Plan = append(deploy.Plan, Item{Kind: Note, Body: "Deployed only once every kube-controller-manager runs without the in-tree provider (--ccm-last): " +
		"no cloud controller can run in two managers, whatever this manager does with leader migration, and none runs from the last switch until this manager leads."})
	return []Step{sw, deploy}
}
