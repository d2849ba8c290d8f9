package migrate_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kind/pkg/exec"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/verify/timeline"
)

// TestTaskDocMigration runs the task doc on a 2-control-plane in-tree
// cluster: interrupted after the first N+1 node, resumed, re-run (a no-op),
// then rolled back.
func TestTaskDocMigration(t *testing.T) {
	s := migrate.DefaultSpec(migrate.TaskDoc)
	testenv.RequireIntegration(t, s.From)
	testenv.RequireIntegration(t, s.To)
	s.Cluster = "mig-taskdoc"
	ctx := context.Background()
	var tlBuf bytes.Buffer
	env := createCluster(t, s, timeline.NewWriter(&tlBuf))
	s, err := migrate.Resolve(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	if s.ControlPlanes != 2 {
		t.Fatalf("resolved %d control planes, want 2", s.ControlPlanes)
	}
	p := build(t, s)

	// Stop after the first N+1 control plane, as an interrupted run would.
	if err := migrate.Run(ctx, p, env, migrate.RunOptions{Until: "add-n1-control-plane-1"}); err != nil {
		t.Fatal(err)
	}
	tlBuf.Reset()
	if err := migrate.Run(ctx, p, env, migrate.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := countKind(t, &tlBuf, timeline.StepSkipped); got < 5 {
		t.Errorf("the resumed run skipped %d steps, want the 5 already done", got)
	}
	assertSettled(t, env, lmconfig.CCM, lmconfig.KCM)
	holder, err := env.LeaseHolder(ctx, s.LeaderName)
	if err != nil || !strings.HasPrefix(holder, s.Cluster+"-control-plane") {
		t.Errorf("migration lease holder %q (%v)", holder, err)
	}

	tlBuf.Reset()
	if err := migrate.Run(ctx, p, env, migrate.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := countKind(t, &tlBuf, timeline.StepStart); n != 0 {
		t.Errorf("re-running the finished procedure started %d steps, want none", n)
	}

	rs := s
	rs.Variant.Rollback = true
	if err := migrate.Run(ctx, build(t, rs), env, migrate.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	assertSettled(t, env, lmconfig.KCM, lmconfig.CCM)
}

func createCluster(t *testing.T, s migrate.Spec, tl *timeline.Writer) *migrate.Env {
	t.Helper()
	topo := topology.Default()
	topo.Name, topo.ControlPlanes, topo.Workers, topo.Kubernetes = s.Cluster, 2, 1, s.From
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	c, err := cloudcluster.Create(context.Background(), topo, cloudcluster.InTree, cloudcluster.DaemonSet,
		kindcluster.CreateOptions{Logger: testenv.Logger{T: t}, KubeconfigPath: kubeconfig}, handoverBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			_ = c.CollectLogs(testenv.ArtifactsDir(t))
		}
		_ = cloudcluster.Delete(context.Background(), topo.Name, kubeconfig, testenv.Logger{T: t})
	})
	env, err := migrate.NewEnv(s, testenv.Logger{T: t}, tl)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func build(t *testing.T, s migrate.Spec) *migrate.Procedure {
	t.Helper()
	p, err := migrate.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if fs := s.Lint(); fs.Errors() > 0 {
		t.Fatalf("preflight lint:\n%s", fs)
	}
	return p
}

// assertSettled: every migrated controller runs in exactly one instance of
// owner, none in other, as the managers' /healthz?verbose says; every node
// has a ProviderID.
func assertSettled(t *testing.T, env *migrate.Env, owner, other string) {
	t.Helper()
	own, err := env.Owners(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range env.Spec.Controllers() {
		in := own[c]
		if len(in) != 1 || !strings.HasPrefix(in[0], owner+"@") {
			t.Errorf("%s runs in %v, want exactly one %s", c, in, owner)
		}
		for _, i := range in {
			if strings.HasPrefix(i, other+"@") {
				t.Errorf("%s still runs in %s", c, i)
			}
		}
	}
	t.Logf("MEASURED ownership after the run: %v", own)
	nodes, err := env.Client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		if n.Spec.ProviderID == "" {
			t.Errorf("node %s has no ProviderID", n.Name)
		}
	}
}

func countKind(t *testing.T, buf *bytes.Buffer, kind string) int {
	t.Helper()
	evs, err := timeline.Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range evs {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

// handoverBinary builds the CLI, which runs the cluster's simcloud.
func handoverBinary(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "handover")
	if _, err := exec.CombinedOutputLines(exec.Command("go", "build", "-o", out, "github.com/handover-sh/handover/cmd/handover")); err != nil {
		t.Fatalf("building handover: %v", err)
	}
	return out
}
