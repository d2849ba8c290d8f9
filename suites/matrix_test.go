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

	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/rehearsal/matrix"
	"github.com/handover-sh/handover/verify/checks"
)

// The version matrix (rehearsal/matrix): the task doc on every pair handover
// builds images for, with each configuration, and with each provider whose
// manager the simulated one imitates where that provider is in tree, the
// lint bypassed. What the checks find must be what the lint predicted from
// the same configurations, versions and provider — which controllers run in
// two managers at once, which are left to nobody — and the procedure must
// complete. Other red checks are listed in the row (the rehearsal's own
// reports judge them). Each spec adds a row to
// _output/suites/matrix/verdicts.md. HANDOVER_MATRIX_SHARD runs one shard
// (a version pair; `handover matrix --list`).
var _ = Describe("version matrix", Label("matrix"), func() {
	only := os.Getenv(shardEnv)
	if only != "" {
		// A shard that is not one fails at once rather than running none.
		_, err := matrix.Lookup(only)
		It("runs shard "+only, func() { Expect(err).NotTo(HaveOccurred(), "%s", shardEnv) })
	}
	for _, sh := range matrix.Shards() {
		if only != "" && only != sh.Name {
			continue
		}
		for _, row := range sh.Rows {
			It(fmt.Sprintf("%s → %s, %s configuration%s", row.From, row.To, row.Config.Name, providerText(row.Provider)), func(ctx context.Context) {
				c := row.Rehearsal(negativeConfig(), "..")
				name := row.Name()
				predicted := predict(c, name)
				res, err := run(ctx, name, "matrix/"+name, c)
				Expect(res.Report).NotTo(BeNil(), "stopped before its checks: %v", err)
				if err != nil {
					Expect(errors.Is(err, rehearsal.ErrChecksFailed)).To(BeTrue(), "not a check that failed: %v", err)
				}
				v := verdictOf(res.Report.Results, predicted)
				line := fmt.Sprintf("| %s → %s | %s | %s | %s | %s | %s | %s | %s |", row.From, row.To, row.Config.Name+providerText(row.Provider), v.bothText(),
					v.longestGap.Round(100*time.Millisecond), v.providerID, list(predicted.Both), list(predicted.Orphaned), list(append(v.unproven, v.other...)))
				AddReportEntry("verdict", line)
				appendVerdict(line)
				Expect(predicted.Unknown).To(BeEmpty(), "the lint has no facts for these versions")
				Expect(v.unproven).To(BeEmpty(), "too little evidence to hold the checks to the prediction")
				Expect(keys(v.both)).To(ConsistOf(predicted.Both), "ran in two managers at once vs the lint's prediction")
				Expect(v.gaps).To(ContainElements(predicted.Orphaned), "left to no manager vs the lint's prediction")
				Expect(v.procedure).To(BeTrue(), "the procedure did not complete: %v", v.other)
			}, NodeTimeout(30*time.Minute))
		}
	}
})

// providerText names an imitated provider in a spec's and a row's text.
func providerText(provider string) string {
	if provider == "" {
		return ""
	}
	return ", " + provider + "'s manager"
}

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

const verdictHeader = "| pair | configuration | ran in both (longest overlap) | longest coverage gap | ProviderID | lint: in both | lint: orphaned | other red checks |\n|---|---|---|---|---|---|---|---|\n"

// shardEnv names the one shard to run (make matrix SHARD=NAME).
const shardEnv = "HANDOVER_MATRIX_SHARD"

// verdicts is this run's table (an earlier run's goes): a shard's own under
// matrix/<shard>/, so that shards run one after another here each keep
// theirs for handover report merge.
var verdicts = &table{path: filepath.Join("matrix", os.Getenv(shardEnv), "verdicts.md"), header: verdictHeader}

func appendVerdict(row string) { verdicts.append(row) }
