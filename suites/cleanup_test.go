package suites_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// A rehearsal stopped the way a CI runner stops it leaves nothing behind:
// killed outright, the next run removes what it left; sent SIGTERM with a
// runner's grace before SIGKILL, it removes everything itself.
var _ = Describe("cleanup", Label("cleanup"), func() {
	It("removes what a rehearsal killed with SIGKILL mid-procedure left, on the next run", func(ctx context.Context) {
		name := "suite-cleanup-kill"
		cmd := startMidProcedure(ctx, name)
		Expect(cmd.Process.Kill()).To(Succeed())
		_ = cmd.Wait()
		Expect(containersOf(name)).NotTo(BeEmpty(), "a killed run left nothing: the spec proves nothing")
		_, cloudRuns := cloudcluster.ServerPID(name)
		Expect(cloudRuns).To(BeTrue(), "the killed run's simulated cloud is not running: the spec proves nothing")

		out, err := exec.CommandContext(ctx, self, "cluster", "prune").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), "prune: %s", out)
		Expect(string(out)).To(ContainSubstring(`Removing cluster "`+name+`"`), "prune did not say what it removed")
		expectNothingLeft(name)
	}, NodeTimeout(20*time.Minute))

	It("removes everything itself when sent SIGTERM with a 10 s grace before SIGKILL", func(ctx context.Context) {
		name := "suite-cleanup-term"
		cmd := startMidProcedure(ctx, name)
		Expect(cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			Expect(cmd.Process.Kill()).To(Succeed())
			<-exited
		}
		// The deletion runs in a process of its own, which the SIGKILL
		// did not reach.
		Eventually(func() []string { return containersOf(name) }).WithTimeout(3 * time.Minute).WithPolling(2 * time.Second).Should(BeEmpty())
		Eventually(func() bool { _, ok := cloudcluster.ServerPID(name); return ok }).WithTimeout(time.Minute).Should(BeFalse())
		Expect(cloudcluster.Orphans()).NotTo(ContainElement(name), "the run's claim is left: the next run would prune it again")
		expectNothingLeft(name)
	}, NodeTimeout(20*time.Minute))
})

// startMidProcedure starts `handover rehearse` for cluster name and returns
// once its procedure has begun (its first step is on the timeline).
func startMidProcedure(ctx context.Context, name string) *exec.Cmd {
	out := reportsDir(name)
	Expect(os.RemoveAll(out)).To(Succeed())
	var log bytes.Buffer
	cmd := exec.CommandContext(ctx, self, "rehearse", "--name", name, "--control-planes", "2", "--workers", "1", "--load", "light", "--out", out)
	cmd.Dir, cmd.Stdout, cmd.Stderr = source, &log, &log
	Expect(cmd.Start()).To(Succeed())
	DeferCleanup(func() {
		AddReportEntry("rehearse output", log.String())
		_ = exec.Command(self, "cluster", "delete", "--name", name).Run() // whatever the spec found
	})
	Eventually(func() bool {
		raw, _ := os.ReadFile(filepath.Join(out, "timeline.jsonl"))
		return bytes.Contains(raw, []byte(`"kind":"step.start"`))
	}).WithContext(ctx).WithTimeout(12*time.Minute).WithPolling(time.Second).Should(BeTrue(), "the procedure never started")
	return cmd
}

// containersOf lists every container of the cluster: nodes (kind's label),
// load balancers and kwok (handover's).
func containersOf(name string) []string {
	var all []string
	for _, label := range []string{"io.x-k8s.kind.cluster", "dev.handover.cluster"} {
		out, err := exec.Command("docker", "ps", "-aq", "--filter", "label="+label+"="+name).Output()
		Expect(err).NotTo(HaveOccurred())
		all = append(all, strings.Fields(string(out))...)
	}
	return all
}

func expectNothingLeft(name string) {
	Expect(containersOf(name)).To(BeEmpty(), "containers of %s left", name)
	_, cloudRuns := cloudcluster.ServerPID(name)
	Expect(cloudRuns).To(BeFalse(), "the simulated cloud of %s still runs", name)
	procs, _ := exec.Command("pgrep", "-af", "--", "--cluster "+name).Output()
	Expect(strings.TrimSpace(string(procs))).To(BeEmpty(), "processes of %s left", name)
	others, _ := exec.Command("docker", "ps", "-aq", "--filter", "label=io.x-k8s.kind.cluster").Output()
	if len(bytes.TrimSpace(others)) == 0 {
		nets, _ := exec.Command("docker", "network", "ls", "-q", "--filter", "name=^kind$").Output()
		Expect(strings.TrimSpace(string(nets))).To(BeEmpty(), "the kind network is left with no cluster on it")
	}
}
