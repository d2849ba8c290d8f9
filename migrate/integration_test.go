package migrate_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/reports"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/timeline"
)

// TestTaskDocMigration runs the task doc on a 2-control-plane in-tree
// cluster under the observers: interrupted after the first N+1 node,
// resumed, re-run (a no-op), then rolled back. Every check must pass on the
// recorded timeline: the clean run raises no false alarm.
func TestTaskDocMigration(t *testing.T) {
	s := migrate.DefaultSpec(migrate.TaskDoc)
	testenv.RequireIntegration(t, s.From)
	testenv.RequireIntegration(t, s.To)
	s.Cluster = "mig-taskdoc"
	ctx := context.Background()
	// The timeline is kept with the artifacts: a false alarm is judged from it.
	dir := testenv.ArtifactsDir(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "timeline.jsonl")
	_ = os.Remove(path) // Create appends; a timeline is one run's
	tl, err := timeline.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	env, kc := createCluster(t, s, tl)
	s, err = migrate.Resolve(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	if s.ControlPlanes != 2 {
		t.Fatalf("resolved %d control planes, want 2", s.ControlPlanes)
	}
	p := build(t, s)
	ob, err := rehearsal.Observe(context.Background(), kc, env, tl)
	if err != nil {
		t.Fatal(err)
	}
	var cpu0 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &cpu0)
	started := time.Now()

	// Stop after the first N+1 control plane, as an interrupted run would.
	if err := migrate.Run(ctx, p, env, migrate.RunOptions{Until: "add-n1-control-plane-1"}); err != nil {
		t.Fatal(err)
	}
	resumed := time.Now()
	if err := migrate.Run(ctx, p, env, migrate.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	assertSettled(t, env, lmconfig.CCM, lmconfig.KCM)
	rerun := time.Now()
	if err := migrate.Run(ctx, p, env, migrate.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	rerunEnd := time.Now()
	rs := s
	rs.Variant.Rollback = true
	if err := migrate.Run(ctx, build(t, rs), env, migrate.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	assertSettled(t, env, lmconfig.KCM, lmconfig.CCM)
	ob.Stop()
	var cpu1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &cpu1)
	if err := tl.Close(); err != nil {
		t.Fatal(err)
	}
	evs, err := timeline.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := countKind(evs, timeline.StepSkipped, resumed, rerun); n < 5 {
		t.Errorf("the resumed run skipped %d steps, want the 5 already done", n)
	}
	if n := countKind(evs, timeline.StepStart, rerun, rerunEnd); n != 0 {
		t.Errorf("re-running the finished procedure started %d steps, want none", n)
	}
	assertEveryWitness(t, evs)
	wall := time.Since(started)
	cpu := time.Duration(cpu1.Utime.Nano()+cpu1.Stime.Nano()-cpu0.Utime.Nano()-cpu0.Stime.Nano()) * time.Nanosecond
	t.Logf("MEASURED test process (runner + observers) CPU %s over %s wall (%.1f%% of one core), max RSS %d MiB, %d timeline events",
		cpu.Round(time.Millisecond), wall.Round(time.Second), 100*cpu.Seconds()/wall.Seconds(), cpu1.Maxrss/1024, len(evs))
	cfg, err := reports.ConfigFor(evs)
	if err != nil {
		t.Fatal(err)
	}
	r := reports.New("task doc, interrupted, resumed, rolled back", evs, cfg)
	if err := reports.WriteAll(testenv.ArtifactsDir(t), r); err != nil {
		t.Error(err)
	}
	for _, res := range r.Results {
		t.Logf("MEASURED %s %s: %s", res.Check, res.Subject, res.Summary)
		if !res.Passed {
			t.Errorf("false alarm on a clean migration: %s %s: %v", res.Check, res.Subject, res.Violations)
		}
	}
}

func createCluster(t *testing.T, s migrate.Spec, tl *timeline.Writer) (*migrate.Env, *kindcluster.Cluster) {
	t.Helper()
	topo := topology.Default()
	topo.Name, topo.ControlPlanes, topo.Workers, topo.Kubernetes = s.Cluster, 2, 1, s.From
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	c, err := cloudcluster.Create(context.Background(), topo, cloudcluster.InTree, cloudcluster.DaemonSet,
		kindcluster.CreateOptions{Logger: testenv.Logger{T: t}, KubeconfigPath: kubeconfig}, testenv.HandoverBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			_ = c.CollectLogs(testenv.ArtifactsDir(t))
		}
		_ = cloudcluster.Delete(context.Background(), topo.Name, kubeconfig, testenv.Logger{T: t})
	})
	kc, err := kindcluster.Open(s.Cluster, testenv.Logger{T: t})
	if err != nil {
		t.Fatal(err)
	}
	env, err := migrate.NewEnv(s, kc, testenv.Logger{T: t}, tl)
	if err != nil {
		t.Fatal(err)
	}
	return env, kc
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

// assertEveryWitness: the API audit and the metrics saw both managers run
// cloud controllers, so mutual exclusion was checked by every source.
func assertEveryWitness(t *testing.T, evs []timeline.Event) {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range evs {
		switch {
		case e.Kind == timeline.APIWrite:
			seen["api-audit "+e.Manager] = true
		case e.Kind == timeline.Metrics && e.Attrs["controllers"] != "":
			seen["metrics "+e.Manager] = true
		}
	}
	for _, src := range []string{"api-audit", "metrics"} {
		for _, m := range []string{lmconfig.KCM, lmconfig.CCM} {
			if !seen[src+" "+m] {
				t.Errorf("no %s activity of %s on the timeline", src, m)
			}
		}
	}
}

func countKind(evs []timeline.Event, kind string, from, to time.Time) int {
	n := 0
	for _, e := range evs {
		if e.Kind == kind && !e.Time.Before(from) && e.Time.Before(to) {
			n++
		}
	}
	return n
}
