package checks

import (
	"fmt"

	"github.com/handover-sh/handover/timeline"
)

// maxFoldedViolations keeps a folded result's violations readable: the
// first ones in full, then how many more.
const maxFoldedViolations = 20

// foldSimulated turns each check's results on a scale rehearsal's simulated
// nodes (those a scale.join brought up) into one result per check: hundreds
// of rows that say the same would bury the rows about the real nodes. A
// folded result fails when any of its nodes' did, with their violations
// (each naming its node); it is skipped only when all were.
func foldSimulated(evs []timeline.Event, rs []Result) []Result {
	simulated := map[string]bool{}
	for _, e := range evs {
		if e.Kind == timeline.ScaleJoin {
			simulated[e.Node] = true
		}
	}
	if len(simulated) == 0 {
		return rs
	}
	var out []Result
	folded := map[string]int{} // check -> index in out
	for _, r := range rs {
		if !simulated[r.Subject] {
			out = append(out, r)
			continue
		}
		i, ok := folded[r.Check]
		if !ok {
			i = len(out)
			folded[r.Check] = i
			out = append(out, Result{Check: r.Check, Passed: true, Skipped: r.Skipped, Metrics: map[string]float64{}})
		}
		fold(&out[i], r)
	}
	for _, i := range folded {
		f := &out[i]
		n, failed := int(f.Metrics["nodes"]), int(f.Metrics["failed"])
		f.Subject = fmt.Sprintf("%d simulated nodes", n)
		f.Summary = fmt.Sprintf("%d of %d passed", n-failed, n)
		if more := int(f.Metrics["violations"]) - len(f.Violations); more > 0 {
			f.Violations = append(f.Violations, Violation{Message: fmt.Sprintf("… and %d more violations on simulated nodes", more)})
		}
	}
	return out
}

func fold(f *Result, r Result) {
	f.Metrics["nodes"]++
	if !r.Passed {
		f.Passed = false
		f.Metrics["failed"]++
		if len(r.Violations) == 0 { // unproven: its summary says why
			r.Violations = []Violation{{Message: r.Summary}}
		}
	}
	if r.Skipped == "" {
		f.Skipped = ""
	}
	for _, v := range r.Violations {
		f.Metrics["violations"]++
		if len(f.Violations) < maxFoldedViolations {
			v.Message = r.Subject + ": " + v.Message
			f.Violations = append(f.Violations, v)
		}
	}
}
