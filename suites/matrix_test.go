package suites_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/verify/checks"
)

// matrixConfigs are the leader-migration configurations each pair is
// rehearsed with: handover's own, the task doc's as printed, and the
// managers' built-in default.
var matrixConfigs = []struct {
	name  string
	files map[string]string
}{
	{"canonical", nil},
	{"verbatim", map[string]string{"kcm": "../examples/taskdoc-verbatim/kcm.yaml", "ccm": "../examples/taskdoc-verbatim/ccm.yaml"}},
	{"default", map[string]string{"kcm": "default", "ccm": "default"}},
}

// The version matrix: the task doc on every pair handover builds images for
// (N → N+1 and N → N), with each configuration, the lint bypassed. What the
// checks find must be what the lint predicted from the same configurations
// and versions — which controllers run in two managers at once, which are
// left to nobody — and nothing else may go wrong. Each spec adds a row to
// _output/suites/matrix/verdicts.md.
var _ = Describe("version matrix", Label("matrix"), func() {
	for _, pair := range nodeimage.Pairs() {
		from, to, _ := strings.Cut(pair, " → ")
		for _, mc := range matrixConfigs {
			It(fmt.Sprintf("%s → %s, %s configuration", from, to, mc.name), func(ctx context.Context) {
				c := negativeConfig()
				c.From, c.To, c.LeaderMigration = from, to, mc.files
				name := "mx-" + short(from) + "-" + short(to) + "-" + mc.name
				predicted := predict(c, name)
				res, err := run(ctx, name, "matrix/"+name, c)
				Expect(res.Report).NotTo(BeNil(), "stopped before its checks: %v", err)
				if err != nil {
					Expect(errors.Is(err, rehearsal.ErrChecksFailed)).To(BeTrue(), "not a check that failed: %v", err)
				}
				v := verdictOf(res.Report.Results)
				row := fmt.Sprintf("| %s → %s | %s | %s | %s | %s | %s | %s |", from, to, mc.name, v.bothText(),
					v.longestGap.Round(100*time.Millisecond), v.providerID, list(predicted.Both), list(predicted.Orphaned))
				AddReportEntry("verdict", row)
				appendVerdict(row)
				Expect(predicted.Unknown).To(BeEmpty(), "the lint has no facts for these versions")
				Expect(keys(v.both)).To(ConsistOf(predicted.Both), "ran in two managers at once vs the lint's prediction")
				for _, r := range res.Report.Results {
					expected := (r.Check == checks.MutualExclusion && slices.Contains(predicted.Both, r.Subject)) ||
						(r.Check == checks.CoverageGap && slices.Contains(predicted.Orphaned, r.Subject))
					Expect(r.Passed || expected).To(BeTrue(), "%s %s failed, which the lint did not predict: %v", r.Check, r.Subject, r.Violations)
				}
			}, NodeTimeout(30*time.Minute))
		}
	}
})

// predict is the lint's prediction for the rehearsal c describes.
func predict(c rehearsal.Config, name string) lint.Prediction {
	c.Name, c.Out = name, reportsDir("matrix/"+name)
	p, err := c.Validate()
	Expect(err).NotTo(HaveOccurred())
	return p.Spec.Predict()
}

// verdict is what a rehearsal's checks found, in the matrix's terms.
type verdict struct {
	both       map[string]time.Duration // controller → its longest overlap
	longestGap time.Duration
	providerID string
}

func verdictOf(results []checks.Result) verdict {
	v := verdict{both: map[string]time.Duration{}}
	nodes, ok := 0, 0
	for _, r := range results {
		switch r.Check {
		case checks.MutualExclusion:
			for _, x := range r.Violations {
				v.both[r.Subject] = max(v.both[r.Subject], x.To.Sub(x.From))
			}
		case checks.CoverageGap:
			v.longestGap = max(v.longestGap, time.Duration(r.Metrics["longest_gap_seconds"]*float64(time.Second)))
		case checks.ProviderID:
			nodes++
			if r.Passed {
				ok++
			}
		}
	}
	v.providerID = fmt.Sprintf("%d/%d nodes", ok, nodes)
	return v
}

func (v verdict) bothText() string {
	var out []string
	for _, c := range keys(v.both) {
		out = append(out, fmt.Sprintf("%s (%s)", c, v.both[c].Round(100*time.Millisecond)))
	}
	return list(out)
}

func keys(m map[string]time.Duration) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// short is "129" for "v1.29.15".
func short(v string) string {
	parts := strings.SplitN(strings.TrimPrefix(v, "v"), ".", 3)
	return parts[0] + parts[1]
}

const verdictHeader = "| pair | configuration | ran in both (longest overlap) | longest coverage gap | ProviderID | lint: in both | lint: orphaned |\n|---|---|---|---|---|---|---|\n"

// verdictsBegun: this run has started its table (an earlier run's goes).
var verdictsBegun bool

// appendVerdict adds a row to this run's verdict table.
func appendVerdict(row string) {
	path := filepath.Join(reportsDir("matrix"), "verdicts.md")
	Expect(os.MkdirAll(filepath.Dir(path), 0o755)).To(Succeed())
	flags := os.O_APPEND | os.O_WRONLY
	if !verdictsBegun {
		flags = os.O_CREATE | os.O_TRUNC | os.O_WRONLY
		row = strings.TrimSuffix(verdictHeader, "\n") + "\n" + row
		verdictsBegun = true
	}
	f, err := os.OpenFile(path, flags, 0o644)
	Expect(err).NotTo(HaveOccurred())
	defer f.Close()
	_, err = f.WriteString(row + "\n")
	Expect(err).NotTo(HaveOccurred())
}
