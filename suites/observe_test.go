package suites_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/reports"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
)

// `handover observe` in one process while `handover migrate` migrates the
// cluster from another, as an operator migrating by hand would: the verdict
// comes from the observation alone, with nothing the runner announced.
var _ = Describe("observing a migration run by another process", Label("observe"), Ordered, func() {
	const name = "obs"
	BeforeAll(func(ctx context.Context) {
		inTreeCluster(ctx, name)
	}, NodeTimeout(15*time.Minute))

	It("passes the task doc done right", func(ctx context.Context) {
		code, dir, runErr := observeWhile(ctx, name, "observe/taskdoc", "migrate", "--name", name, "--observe=false",
			"--out", reportsDir("observe/taskdoc-runner"))
		Expect(runErr).NotTo(HaveOccurred(), "the observed migration failed")
		failedChecks := failedIn(dir)
		Expect(failedChecks).To(BeEmpty(), "reports in %s", dir)
		Expect(code).To(Equal(0), "observe exited %d; reports in %s", code, dir)
	}, NodeTimeout(30*time.Minute))

	It("fails the CCM started without leader migration", func(ctx context.Context) {
		handover(ctx, "migrate", "--name", name, "--rollback", "--observe=false", "--out", reportsDir("observe/rollback-runner"))
		// The runner's own last step fails too (the migration lease goes
		// stale with the last version-N manager): the verdict wanted here is
		// the observer's, from what it saw alone.
		code, dir, runErr := observeWhile(ctx, name, "observe/ccm-without-lm", "migrate", "--name", name, "--observe=false", "--force",
			"--mistake", migrate.MistakeCCMWithoutLM, "--out", reportsDir("observe/ccm-without-lm-runner"))
		if runErr != nil {
			AddReportEntry("the observed run", runErr.Error())
		}
		Expect(code).NotTo(Equal(0), "observe passed a double run; reports in %s", dir)
		Expect(failedIn(dir)).To(ContainElement(checks.MutualExclusion), "reports in %s", dir)
	}, NodeTimeout(40*time.Minute))
})

// observeWhile observes cluster while the handover command args runs in
// a process of its own, stops the observation with Ctrl-C once it is done
// and a little more has been seen, and returns observe's exit code, its
// reports directory and the observed command's error.
func observeWhile(ctx context.Context, cluster, out string, args ...string) (int, string, error) {
	dir := reportsDir(out)
	Expect(os.RemoveAll(dir)).To(Succeed())
	ob := exec.CommandContext(ctx, self, "observe", "--name", cluster, "--out", dir)
	ob.Stdout, ob.Stderr = GinkgoWriter, GinkgoWriter
	Expect(ob.Start()).To(Succeed())
	observing := func() bool {
		evs, _ := timeline.ReadFile(filepath.Join(dir, "timeline.jsonl"))
		for _, e := range evs {
			if e.Kind == timeline.RunStart { // written once the observers run
				return true
			}
		}
		return false
	}
	Eventually(observing).WithTimeout(time.Minute).WithPolling(time.Second).Should(BeTrue(), "observe did not start")
	runErr := runHandover(ctx, args...)
	time.Sleep(20 * time.Second) // the hand-off's aftermath: leases settle, load balancers resync
	Expect(ob.Process.Signal(syscall.SIGINT)).To(Succeed())
	err := ob.Wait()
	AddReportEntry("reports", dir)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
	return code, dir, runErr
}

// failedIn names the failed checks of the reports in dir.
func failedIn(dir string) []string {
	var out []string
	for _, res := range resultsIn(dir) {
		if !res.Passed {
			out = append(out, res.Check)
			AddReportEntry("failed", res.Check+" "+res.Subject+": "+res.Violations[0].Message)
		}
	}
	return out
}

// resultsIn are the checks' results on the timeline in dir.
func resultsIn(dir string) []checks.Result {
	evs, err := timeline.ReadFile(filepath.Join(dir, "timeline.jsonl"))
	Expect(err).NotTo(HaveOccurred())
	cfg, err := reports.ConfigFor(evs)
	Expect(err).NotTo(HaveOccurred())
	return reports.New("observed", evs, cfg).Results
}

// inTreeCluster creates a cluster of 2 control planes and 1 worker on the
// in-tree cloud for the specs of one container, deleted after them unless
// HANDOVER_KEEP=1.
func inTreeCluster(ctx context.Context, name string) {
	handover(ctx, "cluster", "create", "--name", name, "--cloud", "in-tree", "--control-planes", "2", "--workers", "1")
	DeferCleanup(func(ctx context.Context) {
		if os.Getenv("HANDOVER_KEEP") != "1" {
			handover(ctx, "cluster", "delete", "--name", name)
		}
	}, NodeTimeout(5*time.Minute))
}

// handover runs the handover binary and expects it to succeed.
func handover(ctx context.Context, args ...string) {
	Expect(runHandover(ctx, args...)).To(Succeed(), "handover %v", args)
}

func runHandover(ctx context.Context, args ...string) error {
	c := exec.CommandContext(ctx, self, args...)
	c.Stdout, c.Stderr = GinkgoWriter, GinkgoWriter
	return c.Run()
}
