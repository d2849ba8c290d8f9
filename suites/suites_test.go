package suites_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/clusters/host"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/version"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/verify/checks"
)

func TestSuites(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "handover rehearsals")
}

var (
	self   string // the handover binary: it serves each cluster's simcloud
	source string // the source tree node images are built from
)

var _ = BeforeSuite(func() {
	if testing.Short() {
		Skip("rehearsal suites skipped in -short mode")
	}
	// Every spec is a rehearsal of minutes: run them by label only
	// (make smoke, make suites), never by accident in `go test ./...`.
	if GinkgoLabelFilter() == "" && os.Getenv("HANDOVER_SUITES") != "all" {
		Skip("SKIPPING rehearsal suites: pick them by label (make smoke; make suites SUITE_LABELS=...; go test ./suites/ -ginkgo.label-filter=smoke), or HANDOVER_SUITES=all for every one")
	}
	if !host.DockerReachable(context.Background()) {
		if os.Getenv("HANDOVER_REQUIRE_INTEGRATION") == "1" {
			Fail("rehearsals required but Docker is not reachable (run `handover host prepare`)")
		}
		Skip("SKIPPING rehearsals: Docker is not reachable (run `handover host prepare`)")
	}
	wd, err := os.Getwd()
	Expect(err).NotTo(HaveOccurred())
	source, err = nodeimage.FindSourceDir(wd)
	Expect(err).NotTo(HaveOccurred())
	self = filepath.Join(GinkgoT().TempDir(), "handover")
	out, err := exec.Command("go", "build", "-o", self, "github.com/handover-sh/handover/cmd/handover").CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "building handover: %s", out)
})

// reportsDir is where each spec's rehearsal goes.
func reportsDir(name string) string {
	base := os.Getenv("HANDOVER_REPORTS")
	if base == "" {
		base = filepath.Join(source, rehearsal.OutputDir)
	}
	return filepath.Join(base, "suites", name)
}

// rehearse runs one rehearsal and expects every check to pass; a failure
// carries each failed check's evidence, and the spec's report entries say
// where the reports are.
func rehearse(ctx context.Context, name string, c rehearsal.Config) *rehearsal.Result {
	res, err := run(ctx, "suite-"+name, name, c)
	if res.Report != nil {
		var lines []string
		for _, r := range res.Report.Results {
			line := r.Check + " " + r.Subject + ": " + r.Summary
			if !r.Passed {
				line = "FAIL " + line
				for _, v := range r.Violations {
					line += "\n    " + v.Message + "\n      " + strings.Join(v.Evidence, "\n      ")
				}
			}
			lines = append(lines, line)
		}
		AddReportEntry("checks", strings.Join(lines, "\n"))
	}
	Expect(err).NotTo(HaveOccurred(), "rehearsal %s failed; reports in %s", name, res.Dir)
	return res
}

// rehearseFinding runs a rehearsal with a known finding — a property of
// Kubernetes or of the source document, not of how handover runs it. The
// rehearsal must reach its checks; each failed check goes to accept, which
// fails the spec for anything but that finding, and each is reported. It
// returns the failed checks.
func rehearseFinding(ctx context.Context, name string, c rehearsal.Config, accept func(checks.Result)) (*rehearsal.Result, []checks.Result) {
	res, err := run(ctx, "suite-"+name, name, c)
	Expect(res.Report).NotTo(BeNil(), "stopped before its checks: %v", err)
	if err != nil {
		Expect(errors.Is(err, rehearsal.ErrChecksFailed)).To(BeTrue(), "not a check that failed: %v", err)
	}
	var found []checks.Result
	for _, r := range res.Report.Results {
		if r.Passed {
			continue
		}
		accept(r)
		for _, v := range r.Violations {
			AddReportEntry("finding", r.Check+" "+r.Subject+": "+v.Message)
		}
		found = append(found, r)
	}
	return res, found
}

// run runs one rehearsal as cluster name, its reports in reportsDir(dir),
// the cluster kept when HANDOVER_KEEP=1; the spec's report entries say where
// the reports are and what load ran.
func run(ctx context.Context, name, dir string, c rehearsal.Config) (*rehearsal.Result, error) {
	c.Name, c.Out = name, reportsDir(dir)
	c.Keep = os.Getenv("HANDOVER_KEEP") == "1"
	p, err := c.Validate()
	Expect(err).NotTo(HaveOccurred())
	res, err := rehearsal.Run(ctx, p, rehearsal.Options{Logger: ginkgoLogger{}, Self: self, Source: source, Handover: version.Get().String()})
	AddReportEntry("reports", res.Dir)
	AddReportEntry("load", res.Load.String())
	return res, err
}
