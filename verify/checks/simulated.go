package checks

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// maxFoldedViolations keeps a folded result's violations readable: the
// first ones in full, then how many more.
const maxFoldedViolations = 20

// folded is one check's results on the simulated nodes, being gathered.
type folded struct {
	Result
	judged                  map[string]bool
	from, to                time.Time // the observation, for violations of no time of their own
	passed, skipped, failed int
	violations              int
}

// foldSimulated turns each check's results on a scale rehearsal's simulated
// nodes (those a scale.join brought up) into one result per check: hundreds
// of rows that say the same would bury the rows about the real nodes. A
// folded result fails when any of its nodes' did, with their violations
// (each naming its node), and when a node that joined has no result of
// that check at all (it was never observed); it is skipped only when all
// were.
func foldSimulated(evs []timeline.Event, rs []Result) []Result {
	joined := map[string]bool{}
	for _, e := range evs {
		if e.Kind == timeline.ScaleJoin {
			joined[e.Node] = true
		}
	}
	if len(joined) == 0 {
		return rs
	}
	from, to := span(evs)
	var out []Result
	byCheck := map[string]*folded{}
	var order []string
	for _, r := range rs {
		if !joined[r.Subject] {
			out = append(out, r)
			continue
		}
		f := byCheck[r.Check]
		if f == nil {
			f = &folded{Result: Result{Check: r.Check}, judged: map[string]bool{}, from: from, to: to}
			byCheck[r.Check] = f
			order = append(order, r.Check)
		}
		f.add(r)
	}
	for _, check := range order {
		out = append(out, byCheck[check].result(joined, from, to))
	}
	return out
}

func (f *folded) add(r Result) {
	f.judged[r.Subject] = true
	switch {
	case !r.Passed:
		f.failed++
		if len(r.Violations) == 0 { // unproven: its summary says why
			r.Violations = []Violation{{Message: r.Summary, From: f.from, To: f.to}}
		}
	case r.Skipped != "":
		f.skipped++
		f.Skipped = r.Skipped
	default:
		f.passed++
	}
	for _, v := range r.Violations {
		f.violations++
		if len(f.Violations) < maxFoldedViolations {
			v.Message = r.Subject + ": " + v.Message
			f.Violations = append(f.Violations, v)
		}
	}
}

func (f *folded) result(joined map[string]bool, from, to time.Time) Result {
	r := f.Result
	var unseen []string
	for n := range joined {
		if !f.judged[n] {
			unseen = append(unseen, n)
		}
	}
	sort.Strings(unseen)
	if more := f.violations - len(r.Violations); more > 0 {
		r.Violations = append(r.Violations, Violation{From: from, To: to, Message: fmt.Sprintf("… and %d more violations on simulated nodes", more)})
	}
	if len(unseen) > 0 {
		r.Violations = append(r.Violations, Violation{From: from, To: to, Sources: []string{"scale", "nodes"},
			Message: fmt.Sprintf("%d simulated nodes joined but have no result: never observed (%s)", len(unseen), firstFew(unseen))})
	}
	r.Subject = fmt.Sprintf("%d simulated nodes", len(joined))
	r.Passed = f.failed == 0 && len(unseen) == 0
	if f.passed > 0 || !r.Passed {
		r.Skipped = "" // skipped only when every node was
	}
	r.Summary = fmt.Sprintf("%d passed, %d failed, %d not judged, %d not observed", f.passed, f.failed, f.skipped, len(unseen))
	r.Metrics = map[string]float64{"passed": float64(f.passed), "failed": float64(f.failed), "skipped": float64(f.skipped), "unobserved": float64(len(unseen))}
	return r
}

func firstFew(names []string) string {
	if len(names) > 5 {
		return strings.Join(names[:5], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}
