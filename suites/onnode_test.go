package suites_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/verify/checks"
)

// A migration observed as an operator without tunnels would: `handover
// observe --kubeconfig` run on every control plane (here: in its network
// namespace, the host's binary), each finding and sampling its own node's
// loopback-bound managers — the cloud-controller-manager too, once the
// procedure deploys it — then `handover report merge` joining the
// timelines into one verdict. The procedure keeps its nodes (the task doc
// in place), so an observer is on every control plane throughout.
// Each spec has a cluster of its own: the task doc's rollback needs the
// version-N configuration a replacing migration keeps, which one in place
// does not.
var _ = Describe("observing a migration from its control planes", Label("observe", "foreign"), func() {
	It("passes the task doc done in place, each control plane's observation merged into one", func(ctx context.Context) {
		const name = "onnode"
		kc, kubecfg := observedCluster(ctx, name)
		dir := reportsDir("onnode/taskdoc")
		runErr := observeOnNodes(ctx, kc, kubecfg, dir, "migrate", "--name", name, "--in-place", "--observe=false",
			"--out", reportsDir("onnode/taskdoc-runner"))
		Expect(runErr).NotTo(HaveOccurred(), "the observed migration failed")
		code := mergeObservations(ctx, dir)
		merged := filepath.Join(dir, "merged")
		Expect(failedIn(merged)).To(BeEmpty(), "reports in %s", merged)
		Expect(code).To(Equal(0), "report merge exited %d; reports in %s", code, merged)
		for _, r := range resultsIn(merged) {
			if r.Check == checks.MutualExclusion {
				Expect(r.Unproven()).To(BeFalse(), "%s: %s", r.Subject, r.Summary)
			}
		}
	}, NodeTimeout(40*time.Minute))

	It("fails the CCM started without leader migration, from the merged timeline", func(ctx context.Context) {
		const name = "onnode-red"
		kc, kubecfg := observedCluster(ctx, name)
		dir := reportsDir("onnode/ccm-without-lm")
		runErr := observeOnNodes(ctx, kc, kubecfg, dir, "migrate", "--name", name, "--in-place", "--observe=false", "--force",
			"--mistake", migrate.MistakeCCMWithoutLM, "--out", reportsDir("onnode/ccm-without-lm-runner"))
		if runErr != nil {
			AddReportEntry("the observed run", runErr.Error())
		}
		code := mergeObservations(ctx, dir)
		merged := filepath.Join(dir, "merged")
		Expect(code).NotTo(Equal(0), "the merged timeline passed a double run; reports in %s", merged)
		Expect(provenOverlaps(merged)).NotTo(BeEmpty(), "no overlap proven from the merged timeline; reports in %s", merged)
	}, NodeTimeout(40*time.Minute))
})

// observedCluster creates an in-tree cluster for one spec and a read-only
// kubeconfig for it whose server the control planes reach: the API load
// balancer's address on the kind network.
func observedCluster(ctx context.Context, name string) (*kindcluster.Cluster, string) {
	inTreeCluster(ctx, name)
	kc, err := kindcluster.Open(name, ginkgoLogger{})
	Expect(err).NotTo(HaveOccurred())
	admin, err := kc.Client()
	Expect(err).NotTo(HaveOccurred())
	return kc, writeKubeconfig("https://"+balancerAddress(ctx, name)+":6443", readOnlyToken(ctx, admin))
}

// balancerAddress is the address of the cluster's API load balancer on the
// kind network: what a control plane reaches the API at (its kubeconfig's
// name for it resolves only in Docker's DNS).
func balancerAddress(ctx context.Context, cluster string) string {
	out, err := exec.CommandContext(ctx, "docker", "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}",
		cluster+"-external-load-balancer").Output()
	Expect(err).NotTo(HaveOccurred())
	return strings.TrimSpace(string(out))
}

// observeOnNodes starts `handover observe --kubeconfig` in every control
// plane's network namespace, each into dir/<node>, runs handover with args,
// waits for the hand-off's aftermath, and stops them.
func observeOnNodes(ctx context.Context, kc *kindcluster.Cluster, kubeconfig, dir string, args ...string) error {
	Expect(os.RemoveAll(dir)).To(Succeed())
	cps, err := kc.ControlPlanes()
	Expect(err).NotTo(HaveOccurred())
	var obs []*exec.Cmd
	for _, n := range cps {
		pid, err := kc.PID(ctx, n.String())
		Expect(err).NotTo(HaveOccurred())
		out := filepath.Join(dir, n.String())
		cmd := exec.CommandContext(ctx, "nsenter", "-n", "-t", fmt.Sprint(pid), self, "observe", "--kubeconfig", kubeconfig, "--out", out)
		cmd.Env = append(os.Environ(), "DOCKER_HOST=unix:///nonexistent/docker.sock", "KUBECONFIG=/nonexistent")
		log := &testenv.LockedBuffer{}
		cmd.Stdout, cmd.Stderr = io.MultiWriter(GinkgoWriter, log), io.MultiWriter(GinkgoWriter, log)
		Expect(cmd.Start()).To(Succeed())
		Eventually(func() bool { return hasRunStart(out) }).WithTimeout(time.Minute).WithPolling(time.Second).Should(BeTrue(), "observe on %s did not start:\n%s", n, log)
		// On its node it finds its own managers on the loopback.
		Expect(log.String()).To(MatchRegexp(`found kube-controller-manager on `+n.String()+` \(pod [^)]*\): sampled at https://127\.0\.0\.1:`), "%s", log)
		obs = append(obs, cmd)
	}
	runErr := runHandover(ctx, args...)
	time.Sleep(20 * time.Second) // the hand-off's aftermath: leases settle, load balancers resync
	for _, cmd := range obs {
		Expect(cmd.Process.Signal(syscall.SIGINT)).To(Succeed())
		_ = cmd.Wait() // each alone sees only its node's managers: the merged timeline is judged
	}
	return runErr
}

// mergeObservations joins dir's observations into dir/merged and returns
// report merge's exit code.
func mergeObservations(ctx context.Context, dir string) int {
	timelines, err := filepath.Glob(filepath.Join(dir, "*", "timeline.jsonl"))
	Expect(err).NotTo(HaveOccurred())
	Expect(len(timelines)).To(BeNumerically(">=", 2), "observations in %s", dir)
	cmd := exec.CommandContext(ctx, self, append(append([]string{"report", "merge"}, timelines...), "--out", filepath.Join(dir, "merged"))...)
	out, err := cmd.CombinedOutput()
	AddReportEntry("report merge", string(out))
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	Expect(err).NotTo(HaveOccurred(), "%s", out)
	return 0
}
