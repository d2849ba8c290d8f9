package migrate_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
)

// migrated is a fake cluster after the task doc's forward procedure: two
// version-N+1 control planes with their cloud-controller-managers running
// every migrated controller.
func migrated(t *testing.T, controlPlanes int) *fakeEnv {
	t.Helper()
	s := taskDocSpec()
	s.ControlPlanes = controlPlanes
	f := newFakeEnv(t, s)
	for _, st := range f.proc.Steps {
		if strings.HasPrefix(st.Name, "verify-") {
			continue
		}
		f.do(t, st)
	}
	cps, err := f.kind.ControlPlanes()
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != controlPlanes || slices.ContainsFunc(cps, func(n nodes.Node) bool { return slices.Contains(f.cps, n.String()) }) {
		t.Fatalf("after the forward procedure: %v", cps)
	}
	s.Variant.Rollback = true
	p, err := migrate.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	f.proc, f.Spec = p, p.Spec
	return f
}

// The task doc's rollback steps, after the forward migration, on a fake.
func TestRollbackSteps(t *testing.T) {
	f := migrated(t, 2)
	n1, _ := f.kind.ControlPlanes()

	if !f.done(t, f.step(t, "grant-migration-lease")) {
		t.Error("the forward run's grant is not seen: a rollback would grant again")
	}

	f.walk(t, "restore-n-cluster-configuration")

	// A version-N control plane joins with the in-tree kubelet, its
	// configuration file and a manager rendered with leader migration.
	add := f.step(t, "add-n-control-plane-1")
	f.walk(t, "add-n-control-plane-1")
	added := f.kind.Added()
	o := added[len(added)-1]
	if o.Role != kindcluster.RoleControlPlane || o.Kubernetes != f.Spec.From || o.KubeletArgs["cloud-provider"] != cloudcluster.ProviderName {
		t.Errorf("joined %+v", o)
	}
	n := lastNode(t, f)
	if m := f.file(t, n, kcmManifest); !strings.Contains(m, "--enable-leader-migration") || !strings.Contains(m, "--cloud-provider="+cloudcluster.ProviderName) || !strings.Contains(m, ":"+f.Spec.From) {
		t.Errorf("version-N kube-controller-manager:\n%s", m)
	}
	if c := f.file(t, n, lmConfig); !strings.Contains(c, "component: kube-controller-manager") {
		t.Errorf("version-N configuration:\n%s", c)
	}
	if ok, err := f.until(add); !ok {
		t.Errorf("version-N manager not running: %v", err)
	}

	// Version-N+1 control planes go non-leaders first.
	remove := f.step(t, "remove-n1-control-plane-1")
	if f.done(t, remove) {
		t.Fatal("remove-n1-control-plane-1 done before it ran")
	}
	holder, other := n1[0].String(), n1[1].String()
	f.holds(t, f.Spec.LeaderName, holder)
	f.do(t, remove)
	if ok, _ := f.kind.Running(context.Background(), other); ok {
		t.Errorf("%s (no lease) still there", other)
	}
	if !f.done(t, remove) {
		t.Fatal("remove-n1-control-plane-1 not done after it ran")
	}

	settle := f.step(t, "verify-controllers-in-kcm")
	f.runs(t, ccm, holder)
	if ok, _ := f.until(settle); ok {
		t.Error("settled in kube-controller-manager while the CCM runs the controllers")
	}
	f.runs(t, kcm, n)
	f.holds(t, f.Spec.LeaderName, n)
	f.holds(t, kcm, n)
	f.initialiseNodes(t)
	if ok, err := f.until(settle); !ok {
		t.Errorf("not settled: %v", err)
	}
}

// Rolling back a cluster handover did not migrate stops before changing
// anything: there is no version-N configuration to restore.
func TestRollbackWithoutForwardRun(t *testing.T) {
	s := taskDocSpec()
	s.Variant.Rollback = true
	f := newFakeEnv(t, s)
	restore := f.step(t, "restore-n-cluster-configuration")
	err := restore.Do(context.Background(), f.Env)
	if err == nil || !strings.Contains(err.Error(), "was the forward migration run by handover") {
		t.Fatalf("restore with nothing saved: %v", err)
	}
}

// A removal that fails after stopping a manager to hand its main lease
// over is undone: the manager runs again, so a re-run finds the node whole.
func TestRemovalUndo(t *testing.T) {
	f := migrated(t, 1)
	ctx := context.Background()
	n1 := lastNode(t, f)
	f.do(t, f.step(t, "restore-n-cluster-configuration"))
	f.do(t, f.step(t, "add-n-control-plane-1"))
	// The N+1 node's CCM holds the migration lease and its
	// kube-controller-manager, another identity, its own main lease; no
	// other manager takes that lease in time.
	f.holdsAs(t, f.Spec.LeaderName, n1+"_ccm")
	f.holdsAs(t, kcm, n1+"_kcm")
	f.Spec.Intervals = migrate.Intervals{migrate.IntervalMainLeaseHandoff: 50 * time.Millisecond}
	remove := f.step(t, "remove-n1-control-plane-1")
	if err := remove.Do(ctx, f.Env); err == nil || !strings.Contains(err.Error(), "to take lease") {
		t.Fatalf("removal with no one to take the main lease: %v", err)
	}
	if _, err := f.kind.ReadFile(ctx, n1, kcmManifest); err == nil {
		t.Fatal("the manager was not stopped: the undo is not exercised")
	}
	if err := remove.Undo(ctx, f.Env); err != nil {
		t.Fatal(err)
	}
	f.file(t, n1, kcmManifest)
	if _, err := f.kind.ReadFile(ctx, n1, "/etc/kubernetes/stopped-manifests/kube-controller-manager.yaml"); err == nil {
		t.Error("the stopped copy is left behind")
	}
	if _, err := f.kind.Client.CoreV1().Pods("kube-system").Get(ctx, kcm+"-"+n1, metav1.GetOptions{}); err != nil {
		t.Errorf("the manager does not run again: %v", err)
	}
	if ok, _ := f.kind.Running(ctx, n1); !ok {
		t.Error("the node was removed")
	}
}

// A rollback after --disable re-enables leader migration on every N+1
// cloud-controller-manager first, its configuration file before its
// manifest (which mounts it).
func TestRollbackReenablesLeaderMigration(t *testing.T) {
	s := taskDocSpec()
	s.Variant.Disable = true
	f := newFakeEnv(t, s)
	for _, st := range f.proc.Steps {
		if !strings.HasPrefix(st.Name, "verify-") {
			f.do(t, st)
		}
	}
	n1, _ := f.kind.ControlPlanes()
	for _, cp := range n1 {
		if _, err := f.kind.ReadFile(context.Background(), cp.String(), lmConfig); err == nil {
			t.Fatalf("%s kept %s after --disable", cp, lmConfig)
		}
	}
	s.Variant.Rollback = true
	p, err := migrate.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	f.proc, f.Spec = p, p.Spec
	if got := stepNames(p)[:3]; !slices.Equal(got, []string{"grant-migration-lease", "re-enable-leader-migration", "restore-n-cluster-configuration"}) {
		t.Errorf("rollback after --disable starts %v", got)
	}
	writes := len(f.kind.Writes())
	f.walk(t, "re-enable-leader-migration")
	for _, cp := range n1 {
		if c := f.file(t, cp.String(), lmConfig); !strings.Contains(c, "component: cloud-controller-manager") {
			t.Errorf("%s configuration:\n%s", cp, c)
		}
		pod := f.file(t, cp.String(), cloudcluster.CCMStaticPodPath)
		if !strings.Contains(pod, "--enable-leader-migration") || !strings.Contains(pod, "--leader-migration-config="+lmConfig) || !strings.Contains(pod, "mountPath: "+lmConfig) {
			t.Errorf("%s cloud-controller-manager:\n%s", cp, pod)
		}
	}
	w := f.kind.Writes()[writes:]
	if i, j := slices.Index(w, n1[0].String()+":"+lmConfig), slices.Index(w, n1[0].String()+":"+cloudcluster.CCMStaticPodPath); i < 0 || j < i {
		t.Errorf("the manifest was written before the file it mounts: %v", w)
	}
}
