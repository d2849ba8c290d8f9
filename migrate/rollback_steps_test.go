package migrate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// migrated is a fake cluster after the task doc's forward procedure: two
// version-N+1 control planes with their cloud-controller-managers running
// every migrated controller.
func migrated(t *testing.T) *fakeEnv {
	t.Helper()
	f := newFakeEnv(t, taskDocSpec())
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
	if len(cps) != 2 || cps[0].String() == f.cps[0] || cps[1].String() == f.cps[0] {
		t.Fatalf("after the forward procedure: %v", cps)
	}
	s := taskDocSpec()
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
	f := migrated(t)
	n1, _ := f.kind.ControlPlanes()

	if !f.done(t, f.step(t, "grant-migration-lease")) {
		t.Error("the forward run's grant is not seen: a rollback would grant again")
	}

	restore := f.step(t, "restore-n-cluster-configuration")
	if f.done(t, restore) {
		t.Fatal("restore-n-cluster-configuration done before it ran")
	}
	f.do(t, restore)
	if !f.done(t, restore) {
		t.Fatal("restore-n-cluster-configuration not done after it ran")
	}

	// A version-N control plane joins with the in-tree kubelet, its
	// configuration file and a manager rendered with leader migration.
	add := f.step(t, "add-n-control-plane-1")
	if f.done(t, add) {
		t.Fatal("add-n-control-plane-1 done before it ran")
	}
	f.do(t, add)
	if !f.done(t, add) {
		t.Fatal("add-n-control-plane-1 not done after it ran")
	}
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
