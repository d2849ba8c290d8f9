package suites_test

import (
	"testing"
	"time"

	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/verify/checks"
)

// TestVerdictUnprovenIsNotAgreement: a mutual-exclusion or coverage-gap
// result that failed for want of evidence must not read as the predicted
// double run or orphan.
func TestVerdictUnprovenIsNotAgreement(t *testing.T) {
	now := time.Now()
	unproven := []checks.Violation{{From: now, To: now.Add(time.Minute), Sources: []string{checks.Evidence}, Message: "unproven: no health sample"}}
	p := lint.Prediction{Both: []string{lint.ServiceLB}, Orphaned: []string{lint.NodeRoute}}
	v := verdictOf([]checks.Result{
		{Check: checks.MutualExclusion, Subject: lint.ServiceLB, Violations: unproven},
		{Check: checks.CoverageGap, Subject: lint.NodeRoute, Violations: unproven},
	}, p)
	if len(v.both) > 0 || len(v.gaps) > 0 || len(v.unproven) != 2 {
		t.Errorf("unproven results taken as findings: both %v gaps %v unproven %v", v.both, v.gaps, v.unproven)
	}
	seen := []checks.Violation{{From: now, To: now.Add(time.Minute), Sources: []string{"health"}, Message: "ran in both"}}
	v = verdictOf([]checks.Result{{Check: checks.MutualExclusion, Subject: lint.ServiceLB, Violations: seen}}, p)
	if v.both[lint.ServiceLB] != time.Minute || len(v.unproven) > 0 {
		t.Errorf("a seen overlap: both %v unproven %v", v.both, v.unproven)
	}
	v = verdictOf([]checks.Result{{Check: checks.Evidence, Subject: "health", Violations: seen}}, p)
	if len(v.unproven) != 1 {
		t.Errorf("a failed evidence check must stop the comparison: %v", v.unproven)
	}
}
