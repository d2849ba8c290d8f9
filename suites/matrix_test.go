package suites_test

import (
	"context"
	"errors"
	"fmt"
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

// The version matrix: the task doc on every pair handover builds images for,
// with each configuration, the lint bypassed. What the checks find must be
// what the lint predicted from the same configurations and versions — which
// controllers run in two managers at once, which are left to nobody — and
// the procedure must complete. Other red checks are listed in the row (the
// rehearsal's own reports judge them). Each spec adds a row to
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
				v := verdictOf(res.Report.Results, predicted)
				row := fmt.Sprintf("| %s → %s | %s | %s | %s | %s | %s | %s | %s |", from, to, mc.name, v.bothText(),
					v.longestGap.Round(100*time.Millisecond), v.providerID, list(predicted.Both), list(predicted.Orphaned), list(append(v.unproven, v.other...)))
				AddReportEntry("verdict", row)
				appendVerdict(row)
				Expect(predicted.Unknown).To(BeEmpty(), "the lint has no facts for these versions")
				Expect(v.unproven).To(BeEmpty(), "too little evidence to hold the checks to the prediction")
				Expect(keys(v.both)).To(ConsistOf(predicted.Both), "ran in two managers at once vs the lint's prediction")
				Expect(v.gaps).To(ContainElements(predicted.Orphaned), "left to no manager vs the lint's prediction")
				Expect(v.procedure).To(BeTrue(), "the procedure did not complete: %v", v.other)
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

// verdict is what a rehearsal's checks found, in the matrix's terms. Checks
// the prediction does not speak of (availability, load balancers) are listed,
// not judged here: each rehearsal's own reports judge them.
type verdict struct {
	both       map[string]time.Duration // controller → its longest overlap
	gaps       []string                 // controllers that failed coverage-gap
	longestGap time.Duration
	providerID string
	procedure  bool // the procedure completed
	// unproven are the judgements the prediction is held to that lacked
	// their evidence (and the observers' own evidence check).
	unproven []string
	other    []string // other failed checks: "check subject"
}

func verdictOf(results []checks.Result, p lint.Prediction) verdict {
	v := verdict{both: map[string]time.Duration{}, procedure: true}
	nodes, ok := 0, 0
	for _, r := range results {
		judged := r.Check == checks.MutualExclusion || r.Check == checks.CoverageGap || r.Check == checks.Evidence
		switch {
		case judged && (r.Unproven() || (r.Check == checks.Evidence && !r.Passed)):
			v.unproven = append(v.unproven, r.Check+" "+r.Subject)
		case r.Check == checks.MutualExclusion && !r.Passed:
			for _, x := range r.Violations {
				v.both[r.Subject] = max(v.both[r.Subject], x.To.Sub(x.From))
			}
		case r.Check == checks.CoverageGap:
			v.longestGap = max(v.longestGap, time.Duration(r.Metrics["longest_gap_seconds"]*float64(time.Second)))
			if !r.Passed {
				v.gaps = append(v.gaps, r.Subject)
			}
			if !r.Passed && !slices.Contains(p.Orphaned, r.Subject) {
				v.other = append(v.other, r.Check+" "+r.Subject)
			}
		case r.Check == checks.ProviderID:
			nodes++
			if r.Passed {
				ok++
			}
		case !r.Passed:
			v.procedure = v.procedure && r.Check != checks.Procedure
			v.other = append(v.other, r.Check+" "+r.Subject)
		}
	}
	if ok < nodes {
		v.other = append(v.other, fmt.Sprintf("provider-id (%d nodes)", nodes-ok))
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

const verdictHeader = "| pair | configuration | ran in both (longest overlap) | longest coverage gap | ProviderID | lint: in both | lint: orphaned | other red checks |\n|---|---|---|---|---|---|---|---|\n"

// verdicts is this run's table (an earlier run's goes).
var verdicts = &table{path: filepath.Join("matrix", "verdicts.md"), header: verdictHeader}

func appendVerdict(row string) { verdicts.append(row) }
