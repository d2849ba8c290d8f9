package migrate_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

const (
	kcm         = "kube-controller-manager"
	ccm         = "cloud-controller-manager"
	kcmManifest = "/etc/kubernetes/manifests/kube-controller-manager.yaml"
	lmConfig    = "/etc/leadermigration.conf"
)

func taskDocSpec() migrate.Spec {
	s := migrate.DefaultSpec(migrate.TaskDoc)
	s.ControlPlanes = 2
	return s
}

// The task doc's forward steps, in order, on a fake cluster: each is not
// done before it runs and done after, its precondition refuses what must
// not happen, and its postcondition holds only when the managers and the
// nodes say so.
func TestTaskDocSteps(t *testing.T) {
	f := newFakeEnv(t, taskDocSpec())
	cp1, cp2 := f.cps[0], f.cps[1]
	ctx := context.Background()

	// Adding an N+1 control plane before the grant is refused.
	add1 := f.step(t, "add-n1-control-plane-1")
	if err := add1.Pre(ctx, f.Env); err == nil || !strings.Contains(err.Error(), "grant-migration-lease") {
		t.Fatalf("add-n1 before the grant: %v", err)
	}

	grant := f.step(t, "grant-migration-lease")
	if f.done(t, grant) {
		t.Fatal("grant-migration-lease done before it ran")
	}
	f.do(t, grant)
	f.do(t, grant) // a re-run adds no second rule
	if !f.done(t, grant) {
		t.Fatal("grant-migration-lease not done after it ran")
	}
	role, err := f.kind.Client.RbacV1().Roles("kube-system").Get(ctx, cloudcluster.CCMLeaderLockingRole, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := countRules(role.Rules, f.Spec.LeaderName); n != 1 {
		t.Errorf("%d rules for the migration lease in %s, want 1", n, role.Name)
	}

	write := f.step(t, "write-initial-config")
	if f.done(t, write) {
		t.Fatal("write-initial-config done before it ran")
	}
	f.do(t, write)
	if !f.done(t, write) || !strings.Contains(f.file(t, cp2, lmConfig), "component: kube-controller-manager") {
		t.Fatalf("initial configuration not written:\n%s", f.file(t, cp2, lmConfig))
	}

	// Enabling leader migration restarts the lease holder's manager last.
	enable := f.step(t, "enable-leader-migration")
	if f.done(t, enable) {
		t.Fatal("enable-leader-migration done before it ran")
	}
	f.holds(t, kcm, cp1)
	f.do(t, enable)
	if w := manifestWrites(f.kind.Writes()); !slices.Equal(w, []string{cp2, cp1}) {
		t.Errorf("manifests rewritten on %v, want the lease holder last: %v", w, []string{cp2, cp1})
	}
	for _, cp := range f.cps {
		if m := f.file(t, cp, kcmManifest); !strings.Contains(m, "--enable-leader-migration") || !strings.Contains(m, "--leader-migration-config="+lmConfig) {
			t.Errorf("%s: no leader migration:\n%s", cp, m)
		}
	}
	if !f.done(t, enable) {
		t.Fatal("enable-leader-migration not done after it ran")
	}
	if ok, _ := f.until(enable); ok {
		t.Error("settled while no manager reports the controllers")
	}
	f.runs(t, kcm, cp1)
	if ok, err := f.until(enable); !ok {
		t.Errorf("not settled with kube-controller-manager@%s running them: %v", cp1, err)
	}

	f.walk(t, "prepare-n1-cluster-configuration")

	// The N+1 control plane renders its manager from the new configuration
	// and joins with an external kubelet and the CCM's files.
	if f.done(t, add1) {
		t.Fatal("add-n1-control-plane-1 done before it ran")
	}
	f.do(t, add1)
	if !f.done(t, add1) {
		t.Fatal("add-n1-control-plane-1 not done after it ran")
	}
	added := f.kind.Added()
	o := added[len(added)-1]
	if o.Kubernetes != f.Spec.To || o.KubeletArgs["cloud-provider"] != "external" || o.Role != kindcluster.RoleControlPlane {
		t.Errorf("joined %+v", o)
	}
	n1 := lastNode(t, f)
	if m := f.file(t, n1, kcmManifest); strings.Contains(m, "--cloud-provider") || strings.Contains(m, "leader-migration") || !strings.Contains(m, ":"+f.Spec.To) {
		t.Errorf("N+1 kube-controller-manager:\n%s", m)
	}
	if c := f.file(t, n1, lmConfig); !strings.Contains(c, "component: cloud-controller-manager") {
		t.Errorf("N+1 configuration:\n%s", c)
	}
	if pod := f.file(t, n1, cloudcluster.CCMStaticPodPath); !strings.Contains(pod, "--enable-leader-migration") {
		t.Errorf("CCM static pod:\n%s", pod)
	}
	if ok, err := f.until(add1); !ok {
		t.Errorf("CCM static pod not running: %v", err)
	}

	// Version-N control planes go non-leaders first; a controller in two
	// managers stops the runner unless forced.
	remove1 := f.step(t, "remove-n-control-plane-1")
	if f.done(t, remove1) {
		t.Fatal("remove-n-control-plane-1 done before it ran")
	}
	f.holds(t, f.Spec.LeaderName, cp1)
	f.do(t, remove1)
	if _, err := f.kind.Client.CoreV1().Nodes().Get(ctx, cp2, metav1.GetOptions{}); err == nil {
		t.Errorf("%s (no lease) still there", cp2)
	}
	if !f.done(t, remove1) {
		t.Fatal("remove-n-control-plane-1 not done after it ran")
	}
	f.runs(t, kcm, cp1)
	if ok, err := f.until(remove1); !ok {
		t.Errorf("one owner, not settled: %v", err)
	}
	f.managers.Set(ccm, n1, f.Spec.Controllers()...)
	if _, err := f.until(remove1); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("two owners: %v", err)
	}
	f.Force = true
	if ok, _ := f.until(remove1); !ok {
		t.Error("two owners with --force: the runner should go on")
	}
	f.Force = false

	// The end state: every controller in the CCM, its leases agreeing, and
	// every node initialised.
	settle := f.step(t, "verify-controllers-in-ccm")
	f.runs(t, ccm, n1)
	f.holds(t, f.Spec.LeaderName, n1)
	f.holds(t, ccm, n1)
	if _, err := f.until(settle); err == nil || !strings.Contains(err.Error(), n1) {
		t.Errorf("a node without ProviderID: %v", err)
	}
	if f.done(t, settle) {
		t.Error("settled with a node uninitialised")
	}
	f.initialiseNodes(t)
	if ok, err := f.until(settle); !ok {
		t.Errorf("not settled: %v", err)
	}
	f.holds(t, f.Spec.LeaderName, cp1)
	if _, err := f.until(settle); err == nil || !strings.Contains(err.Error(), "migration lease") {
		t.Errorf("migration lease held elsewhere: %v", err)
	}
	// A provider whose manager never takes the migration lease (azure's)
	// is settled by its main lease alone.
	if err := f.Spec.SetCloudProfile("azure-imitation"); err != nil {
		t.Fatal(err)
	}
	if ok, err := f.until(settle); !ok {
		t.Errorf("azure's manager, migration lease elsewhere: not settled: %v", err)
	}
}

// The mistakes change what the steps do, not only what the plan says.
func TestTaskDocMistakeSteps(t *testing.T) {
	ctx := context.Background()
	t.Run(migrate.MistakeNoLeaseRBAC, func(t *testing.T) {
		s := taskDocSpec()
		s.Mistake = migrate.MistakeNoLeaseRBAC
		f := newFakeEnv(t, s)
		grant := f.step(t, "grant-migration-lease")
		f.do(t, grant)
		if !f.done(t, grant) {
			t.Fatal("grant not done")
		}
		role, err := f.kind.Client.RbacV1().Roles("kube-system").Get(ctx, cloudcluster.CCMLeaderLockingRole, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if countRules(role.Rules, s.LeaderName) != 0 {
			t.Error("the CCM was granted the lease")
		}
		if err := f.step(t, "add-n1-control-plane-1").Pre(ctx, f.Env); err != nil {
			t.Errorf("the mistake must go on without the grant: %v", err)
		}
	})
	t.Run(migrate.MistakeN1KCMWithLM, func(t *testing.T) {
		s := taskDocSpec()
		s.Mistake = migrate.MistakeN1KCMWithLM
		f := newFakeEnv(t, s)
		for _, name := range []string{"grant-migration-lease", "prepare-n1-cluster-configuration", "add-n1-control-plane-1"} {
			f.do(t, f.step(t, name))
		}
		if m := f.file(t, lastNode(t, f), kcmManifest); !strings.Contains(m, "--enable-leader-migration") {
			t.Errorf("N+1 kube-controller-manager without leader migration:\n%s", m)
		}
	})
	t.Run(migrate.MistakeNoCCM, func(t *testing.T) {
		s := taskDocSpec()
		s.Mistake = migrate.MistakeNoCCM
		f := newFakeEnv(t, s)
		for _, name := range []string{"grant-migration-lease", "prepare-n1-cluster-configuration", "add-n1-control-plane-1"} {
			f.do(t, f.step(t, name))
		}
		if _, err := f.kind.ReadFile(ctx, lastNode(t, f), cloudcluster.CCMStaticPodPath); err == nil {
			t.Error("a CCM static pod was written")
		}
		if ok, err := f.until(f.step(t, "add-n1-control-plane-1")); !ok {
			t.Errorf("with no CCM there is none to wait for: %v", err)
		}
	})
}

func countRules(rules []rbacv1.PolicyRule, lease string) int {
	n := 0
	for _, r := range rules {
		if slices.Contains(r.ResourceNames, lease) {
			n++
		}
	}
	return n
}

// manifestWrites are the nodes whose kube-controller-manager manifest was
// rewritten, in order (the joins' first writes left out).
func manifestWrites(writes []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range writes {
		node, path, _ := strings.Cut(w, ":")
		if path != kcmManifest {
			continue
		}
		if seen[node] {
			out = append(out, node)
		}
		seen[node] = true
	}
	return out
}

// lastNode is the control plane joined last.
func lastNode(t *testing.T, f *fakeEnv) string {
	t.Helper()
	cps, err := f.kind.ControlPlanes()
	if err != nil {
		t.Fatal(err)
	}
	last := cps[0].String()
	for _, cp := range cps {
		if nodeNumber(cp.String()) > nodeNumber(last) {
			last = cp.String()
		}
	}
	return last
}

func nodeNumber(name string) int {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	n := 1
	if i < len(name) {
		n = 0
		for _, c := range name[i:] {
			n = n*10 + int(c-'0')
		}
	}
	return n
}

// TestClusterAdminsBinding: a 1.29 control plane joining a 1.28 cluster
// needs the kubeadm:cluster-admins binding 1.28's kubeadm never made; a
// 1.30 one joining a 1.29 cluster finds it there.
func TestClusterAdminsBinding(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     bool
	}{{"v1.28.15", "v1.29.15", true}, {"v1.29.15", "v1.30.14", false}} {
		s := taskDocSpec()
		s.From, s.To = c.from, c.to
		f := newFakeEnv(t, s)
		f.walk(t, "grant-migration-lease", "write-initial-config", "prepare-n1-cluster-configuration")
		_, err := f.kind.Client.RbacV1().ClusterRoleBindings().Get(context.Background(), "kubeadm:cluster-admins", metav1.GetOptions{})
		if got := err == nil; got != c.want {
			t.Errorf("%s → %s: binding made %t, want %t (%v)", c.from, c.to, got, c.want, err)
		}
	}
}

// N → N: the replacements run the version they replace, so the steps tell
// them apart by how handover set them up, not by version: each add joins a
// replacement and each removal takes an original control plane.
func TestTaskDocStepsSameVersion(t *testing.T) {
	s := taskDocSpec()
	s.To = s.From
	f := newFakeEnv(t, s)
	f.walk(t, "grant-migration-lease", "write-initial-config", "enable-leader-migration", "prepare-n1-cluster-configuration")
	originals := slices.Clone(f.cps)
	var replacements []string
	for i := 1; i <= s.ControlPlanes; i++ {
		f.walk(t, fmt.Sprintf("add-n1-control-plane-%d", i))
		n1 := lastNode(t, f)
		if slices.Contains(originals, n1) || slices.Contains(replacements, n1) {
			t.Fatalf("add-n1-control-plane-%d joined no node", i)
		}
		replacements = append(replacements, n1)
		f.holds(t, f.Spec.LeaderName, originals[0])
		f.walk(t, fmt.Sprintf("remove-n-control-plane-%d", i))
		left := controlPlaneNames(t, f)
		for _, r := range replacements {
			if !slices.Contains(left, r) {
				t.Fatalf("remove-n-control-plane-%d removed %s, a replacement (left: %v)", i, r, left)
			}
		}
		if len(left) != s.ControlPlanes {
			t.Fatalf("after step %d: control planes %v", i, left)
		}
	}
}

func controlPlaneNames(t *testing.T, f *fakeEnv) []string {
	t.Helper()
	cps, err := f.kind.ControlPlanes()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range cps {
		out = append(out, n.String())
	}
	return out
}

// A static-pod manager whose chart leaves the Nodes to a node manager
// (azure's, --controllers=*,-cloud-node) gets that node manager applied
// before the first external kubelet joins, and the plan shows it; the
// default provider's manager initialises Nodes itself and gets none.
func TestTaskDocAppliesTheNodeManager(t *testing.T) {
	for _, c := range []struct {
		provider string
		want     bool
	}{{"azure", true}, {"", false}} {
		s := taskDocSpec()
		s.From, s.To = "v1.29.15", "v1.30.14"
		if err := s.SetCloudProfile(c.provider); err != nil {
			t.Fatal(err)
		}
		f := newFakeEnv(t, s)
		f.do(t, f.step(t, "grant-migration-lease"))
		f.do(t, f.step(t, "write-initial-config"))
		f.do(t, f.step(t, "prepare-n1-cluster-configuration"))
		add := f.step(t, "add-n1-control-plane-1")
		f.do(t, add)
		applied := strings.Join(f.kind.Applied(), "\n---\n")
		if got := strings.Contains(applied, "name: cloud-node-manager\n"); got != c.want {
			t.Errorf("provider %q: node manager applied %t, want %t", c.provider, got, c.want)
		}
		planned := false
		for _, it := range add.Plan {
			planned = planned || strings.Contains(it.Title, "node manager")
		}
		if planned != c.want {
			t.Errorf("provider %q: node manager in the plan %t, want %t", c.provider, planned, c.want)
		}
	}
}
