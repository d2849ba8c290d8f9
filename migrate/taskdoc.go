package migrate

import (
	"context"
	"fmt"
	"time"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// N1ConfigStep makes kubeadm render version-N+1 control planes: the new
// version, and a kube-controller-manager with no cloud provider and no
// leader migration. The version-N configuration is kept for rollback.
func N1ConfigStep(s Spec) Step {
	plan := append([]Item{{Kind: Command, Body: "kubectl -n kube-system edit configmap kubeadm-config   # ClusterConfiguration:"}}, n1ConfigPlan(s)...)
	return Step{
		Name:  "prepare-n1-cluster-configuration",
		Title: "Set kubeadm's ClusterConfiguration to " + s.To + " with no in-tree cloud provider",
		Plan:  append(plan, s.setup().Notes[newConfigKey]...),
		Done:  func(ctx context.Context, e *Env) (bool, error) { return e.atN1ClusterConfig(ctx) },
		Do:    func(ctx context.Context, e *Env) error { return e.toN1ClusterConfig(ctx) },
	}
}

// n1ConfigPlan is what the N+1 ClusterConfiguration changes, for a plan.
func n1ConfigPlan(s Spec) []Item {
	plan := []Item{
		{Kind: File, Title: "ClusterConfiguration changes", Body: "kubernetesVersion: " + s.To + "\ncontrollerManager:\n  extraArgs:        # remove cloud-provider, cloud-config, enable-leader-migration,\n                    # leader-migration-config and DisableCloudProviders from feature-gates\n  extraVolumes:     # remove cloud-config and leadermigration\n"},
		{Kind: Note, Body: "kube-controller-manager " + s.To + " MUST NOT have leader migration: it runs no cloud controller and would hold the migration lease for nothing."},
	}
	kcm := s.setup().NewKCM
	if kcm.Controllers != "" {
		plan = append(plan, Item{Kind: File, Title: "ClusterConfiguration, node IPAM moves too", Body: "controllerManager:\n  extraArgs:\n    controllers: \"" + kcm.Controllers + "\"\n"})
	}
	if len(s.KCMArgs) > 0 {
		plan = append(plan, Item{Kind: File, Title: "ClusterConfiguration, your kube-controller-manager flags", Body: extraArgsYAML(s.KCMArgs)})
	}
	if s.needsClusterAdmins() {
		plan = append(plan, Item{Kind: File, Title: "kubeadm " + s.To + "'s admin group (kubectl apply -f; `kubeadm upgrade apply` would create it)", Body: clusterAdminsBinding})
	}
	return plan
}

// atN1ClusterConfig: kubeadm's ClusterConfiguration is version N+1's.
func (e *Env) atN1ClusterConfig(ctx context.Context) (bool, error) {
	_, c, err := e.readClusterConfig(ctx)
	if err != nil {
		return false, err
	}
	return c["kubernetesVersion"] == e.Spec.To && c.arg("cloud-provider") == "", nil
}

// toN1ClusterConfig sets kubeadm's ClusterConfiguration to version N+1's,
// keeping version N's for rollback.
func (e *Env) toN1ClusterConfig(ctx context.Context) error {
	s, kcm := e.Spec, e.Spec.setup().NewKCM
	cm, c, err := e.readClusterConfig(ctx)
	if err != nil {
		return err
	}
	if err := e.saveClusterConfig(ctx, s.From, c.String()); err != nil {
		return err
	}
	c.toExternal(s.To)
	if kcm.Controllers != "" {
		c.setArg("controllers", kcm.Controllers)
	}
	if kcm.LeaderMigration {
		c.setArg("enable-leader-migration", "true")
		c.setArg("leader-migration-config", LMConfigPath)
		c.setVolume(lmVolume, LMConfigPath)
	}
	c.setArgs(s.KCMArgs) // the user's win, as the lint reads them
	if s.needsClusterAdmins() {
		if err := e.Cluster.Apply(ctx, clusterAdminsBinding); err != nil {
			return fmt.Errorf("binding kubeadm:cluster-admins: %w", err)
		}
	}
	return e.writeClusterConfig(ctx, cm, c)
}

// clusterAdminsBinding is what `kubeadm init` and `kubeadm upgrade apply`
// of 1.29 and later create: their admin.conf is in this group, not in
// system:masters, so a control plane joining with it is forbidden without.
const clusterAdminsBinding = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: kubeadm:cluster-admins
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: cluster-admin
subjects:
- apiGroup: rbac.authorization.k8s.io
  kind: Group
  name: kubeadm:cluster-admins
`

// needsClusterAdmins: N+1's kubeadm relies on a binding N's did not create.
func (s Spec) needsClusterAdmins() bool {
	from, ferr := nodeimage.Lookup(s.From)
	to, terr := nodeimage.Lookup(s.To)
	return ferr == nil && terr == nil && to.ClusterAdmins && !from.ClusterAdmins
}

// AddN1Step is "create a new control plane node of version N+1".
func AddN1Step(s Spec, i int) Step {
	st := s.setup()
	return Step{
		Name:  fmt.Sprintf("add-n1-control-plane-%d", i),
		Title: fmt.Sprintf("Add version-%s control plane %d of %d with a static-pod cloud-controller-manager", s.To, i, s.ControlPlanes),
		Plan:  addN1Plan(s),
		Done:  atLeast(s.n1Side(), i),
		Pre: func(ctx context.Context, e *Env) error {
			if !st.GrantCCM {
				return nil
			}
			ok, err := leaseGranted(s.Provider().CCMUser)(ctx, e)
			if err == nil && !ok {
				err = fmt.Errorf("%s may not take the migration lease %s (run step grant-migration-lease)", s.Provider().CCMUser, s.LeaderName)
			}
			return err
		},
		Do: func(ctx context.Context, e *Env) error {
			_, err := e.addN1ControlPlane(ctx, false)
			return err
		},
		Wait: Wait{Name: "every cloud-controller-manager static pod Ready", Timeout: s.Intervals.Of(IntervalControlPlane),
			Until: func(ctx context.Context, e *Env) (bool, error) {
				if st.CCM == nil {
					return true, nil
				}
				return e.everyNode(ctx, s.n1Side(), func(node string) (bool, error) {
					return e.staticPodRunning(ctx, node, "cloud-controller-manager", time.Time{})
				})
			}},
	}
}

func addN1Plan(s Spec) []Item {
	st := s.setup()
	items := []Item{
		{Kind: Command, Body: "kubeadm join <endpoint> --control-plane ...   # a node of " + s.To + "; " + kubeletFlags(s.n1Kubelet(false))},
		{Kind: File, Title: "/etc/kubernetes/patches/kubeletconfiguration+merge.yaml (kubeadm join --patches)", Body: kubeletNoInTreeGates},
	}
	if st.CCM != nil && st.CCM.Config != nil {
		items = append(items, Item{Kind: File, Title: LMConfigPath, Body: st.CCM.Config.YAML()})
	}
	items = append(items, st.Notes[addN1Key]...)
	if st.CCM == nil {
		return items
	}
	return append(append(items,
		Item{Kind: File, Title: s.Provider().CCMKubeconfigPath, Body: "# kubeconfig with a client certificate for " + s.Provider().CCMUser + " signed by the cluster CA\n"},
		Item{Kind: File, Title: s.Provider().CCMStaticPodPath, Body: ccmStaticPod(s, st)}), s.nodeManagerPlan()...)
}

// RemoveNStep brings down a version-N control plane: one whose managers
// hold no lease first, so the controllers change hands once, at the end.
func RemoveNStep(s Spec, i int) Step {
	return Step{
		Name:  fmt.Sprintf("remove-n-control-plane-%d", i),
		Title: fmt.Sprintf("Remove version-%s control plane %d of %d", s.From, i, s.ControlPlanes),
		Plan: []Item{{Kind: Command, Body: "# pick a version-" + s.From + " control plane whose managers hold no lease (leaders go last, the migration lease's holder very last)\n" +
			"# on the migration lease's holder, first stop a manager that holds only its main lease and wait for another to take it:\n" +
			"#   mv /etc/kubernetes/manifests/kube-controller-manager.yaml /root/; kubectl -n kube-system get lease kube-controller-manager -w\n" +
			"kubectl drain <it> --ignore-daemonsets --delete-emptydir-data\n" +
			"# take it out of the API load balancer, stop its kube-apiserver, hand off etcd leadership\n" +
			"kubeadm reset phase remove-etcd-member && kubectl delete node <it>"}},
		Done: atMost(s.NSide(), s.ControlPlanes-i),
		Do: func(ctx context.Context, e *Env) error {
			node, err := e.nextAt(ctx, s.NSide(), "remove")
			if err != nil {
				return err
			}
			return e.removeNode(ctx, node)
		},
		Wait: Wait{Name: "each migrated controller running in exactly one manager", Timeout: s.Intervals.Of(IntervalSingleOwner), Until: waitSingleOwner},
		// A manager stopped to hand its main lease over is started again
		// when the removal fails: a re-run then finds the node whole.
		Undo: undoRemoval(s.NSide()),
	}
}

// SettleStep asserts the end state: every migrated controller runs in one
// instance of component and none of the other, and every node has its
// ProviderID and no uninitialized taint.
func SettleStep(s Spec, component string) Step {
	until := func(ctx context.Context, e *Env) (bool, error) {
		if ok, err := WaitOwner(component)(ctx, e); !ok {
			return false, err
		}
		missing, err := e.missingProviderIDs(ctx)
		if err == nil && len(missing) > 0 {
			err = fmt.Errorf("nodes without ProviderID or still uninitialized: %v", missing)
		}
		if err == nil {
			err = e.leaseSettled(ctx, component)
		}
		return err == nil, err
	}
	name := map[string]string{lmconfig.CCM: "verify-controllers-in-ccm", lmconfig.KCM: "verify-controllers-in-kcm"}[component]
	leases := shellJoin("kubectl", "-n", "kube-system", "get", "lease", s.LeaderName, mainLease[component]) + "   # one holder for both\n"
	if component == lmconfig.CCM && !s.CCMTakesMigrationLease() {
		why := "this provider's manager never takes " + s.LeaderName
		if !s.reg().Managers.migrates() {
			why = "no leader migration in this procedure"
		}
		leases = shellJoin("kubectl", "-n", "kube-system", "get", "lease", mainLease[component]) + "   # its leader: " + why + "\n"
	}
	return Step{
		Name:  name,
		Title: "Verify every migrated controller runs in " + component + " only and every node has its ProviderID",
		Plan: []Item{{Kind: Command, Body: "curl -sk https://127.0.0.1:10257/healthz?verbose   # kube-controller-manager, on each control plane\n" +
			"curl -sk https://127.0.0.1:10258/healthz?verbose   # cloud-controller-manager\n" +
			leases +
			"kubectl get nodes -o custom-columns=NAME:.metadata.name,PROVIDER_ID:.spec.providerID,TAINTS:.spec.taints[*].key"}},
		// Not settled yet is not an error here: the wait says why.
		Done: func(ctx context.Context, e *Env) (bool, error) {
			ok, _ := until(ctx, e)
			return ok, nil
		},
		Wait: Wait{Name: "controllers settled in " + component + " and ProviderIDs set", Timeout: s.Intervals.Of(IntervalSettle), Until: until},
	}
}

// waitSingleOwner: each migrated controller runs in exactly one manager
// instance, whichever it is.
func waitSingleOwner(ctx context.Context, e *Env) (bool, error) {
	own, err := e.Owners(ctx)
	if err != nil {
		return false, err
	}
	for _, c := range e.Spec.Controllers() {
		switch {
		case len(own[c]) == 0:
			return false, fmt.Errorf("%s runs nowhere", c)
		case len(own[c]) > 1 && e.Force:
			e.Logger.Warnf("%s runs in %v: going on (--force)", c, own[c])
		case len(own[c]) > 1:
			return false, fmt.Errorf("%s runs in %v (the runner stops here; --force goes on and leaves the verdict to the checks)", c, own[c])
		}
	}
	return true, nil
}

// DisableStep is the task doc's optional "Disable Leader Migration".
func DisableStep(s Spec) Step {
	st := RollStep(s, "disable-leader-migration", "Disable leader migration on every cloud-controller-manager, one node at a time",
		s.n1Side(), lmconfig.CCM, disableLM,
		[]Item{FlagsPlan(lmconfig.CCM, "remove, and unmount "+LMConfigPath, LMFlags(true)...),
			{Kind: Command, Body: "rm " + LMConfigPath + "   # on each control plane, after its cloud-controller-manager restarted"}},
		WaitOwner(lmconfig.CCM))
	do := st.Do
	st.Do = func(ctx context.Context, e *Env) error {
		if err := do(ctx, e); err != nil {
			return err
		}
		cps, err := e.controlPlanes(ctx)
		if err != nil {
			return err
		}
		for _, cp := range onSide(cps, s.n1Side()) {
			if err := e.Cluster.RemoveFile(ctx, cp.Name, LMConfigPath); err != nil {
				return err
			}
		}
		return nil
	}
	return st
}

// ReplaceSteps are the task doc's node replacement: the N+1 cluster
// configuration, then for each control plane an N+1 one joined and the
// oldest version-N one removed.
func ReplaceSteps(s Spec) []Step {
	steps := []Step{N1ConfigStep(s)}
	for i := 1; i <= s.ControlPlanes; i++ {
		steps = append(steps, AddN1Step(s, i), RemoveNStep(s, i))
	}
	return steps
}

// SettleSteps end a task-doc procedure: the controllers verified in the
// cloud-controller-manager, then, with the Disable variant, leader
// migration removed from it.
func SettleSteps(s Spec) []Step {
	steps := []Step{SettleStep(s, lmconfig.CCM)}
	if s.Variant.Disable {
		steps = append(steps, DisableStep(s))
	}
	return steps
}
