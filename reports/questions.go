package reports

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/handover-sh/handover/verify/checks"
)

// exclusionAnswer: did any controller run in two managers at once, and
// for how long.
func exclusionAnswer(rs []checks.Result) answer {
	const q = "Mutual exclusion"
	t := tallyOf(rs, checks.MutualExclusion, "health", "metrics")
	if a, ok := t.unanswered(q); ok {
		return a
	}
	if len(t.failed) > 0 {
		var ran []string
		for _, r := range t.failed {
			ran = append(ran, fmt.Sprintf("%s for %s (%s)", r.Subject, spanned(r.Violations), plural(len(r.Violations), "overlap", "overlaps")))
		}
		return t.settle(answer{q, broken, "NOT held", "ran in two managers at once: " + strings.Join(ran, ", ")})
	}
	return t.settle(answer{q, answered, "held", "no controller ran in two managers at once (" + plural(len(t.passed), "controller", "controllers") + " checked)"})
}

// gapAnswer: the longest any controller ran nowhere, against the
// threshold it was judged by.
func gapAnswer(rs []checks.Result) answer {
	const q = "Longest coverage gap"
	t := tallyOf(rs, checks.CoverageGap, "health")
	if a, ok := t.unanswered(q); ok {
		return a
	}
	longest := extreme(append(t.failed, t.passed...), "longest_gap_seconds", true)
	gap := seconds2(longest.Metrics["longest_gap_seconds"])
	if len(t.failed) > 0 {
		return t.settle(answer{q, broken, gap + ", OVER " + thresholdOf(longest, "max_gap_seconds", "its threshold"), "over it: " + subjects(t.failed)})
	}
	return t.settle(answer{q, answered, gap + ", within " + thresholdOf(longest, "max_gap_seconds", "its threshold"),
		"the longest of " + plural(len(t.passed), "controller", "controllers") + ": " + longest.Subject})
}

// providerIDAnswer: how many Nodes have their ProviderID, unchanged.
func providerIDAnswer(rs []checks.Result) answer {
	const q = "ProviderIDs"
	t := tallyOf(rs, checks.ProviderID, "nodes")
	if a, ok := t.unanswered(q); ok {
		return a
	}
	held, total := 0, 0
	for _, r := range t.all {
		h, n := nodesOf(r)
		held, total = held+h, total+n
	}
	a := answer{q, answered, fmt.Sprintf("%d of %d nodes", held, total), "each has one, and it never changed"}
	if len(t.failed) > 0 {
		a.Standing, a.Detail = broken, messages(t.failed)
	}
	return t.settle(a)
}

// nodesOf counts the Nodes a provider-id result judged and those it held
// on: one, or a scale rehearsal's simulated nodes folded into one result.
func nodesOf(r checks.Result) (held, total int) {
	if p, folded := r.Metrics["passed"]; folded {
		return int(p), int(p + r.Metrics["failed"] + r.Metrics["skipped"] + r.Metrics["unobserved"])
	}
	if r.Passed && r.Skipped == "" {
		return 1, 1
	}
	return 0, 1
}

// availabilityAnswer: the worst share of requests answered and the
// longest outage, over the targets of check.
func availabilityAnswer(rs []checks.Result, check, q, evidence string) answer {
	t := tallyOf(rs, check, evidence)
	if a, ok := t.unanswered(q); ok {
		return a
	}
	measured, young, bare := splitMeasured(append(t.failed, t.passed...))
	t.skipped = append(t.skipped, young...)
	switch {
	case len(measured) == 0 && len(bare) > 0:
		return t.settle(answer{q, answered, "nothing to measure", bare[0].Summary})
	case len(measured) == 0:
		return answer{q, notJudged, "not judged", "no target answered yet as observation ended: " + subjects(t.skipped)}
	}
	a := answer{q, answered, worstOf(measured), limits(measured[0]) + "; " + plural(len(measured), "target", "targets")}
	if len(t.failed) > 0 {
		a.Standing, a.Detail = broken, "failed on "+subjects(t.failed)+"; "+limits(t.failed[0])
	}
	if n := excused(measured); n > 0 {
		a.Detail += fmt.Sprintf("; %d failed while a removed node was still in service by its load balancer's health check (not in the share)", n)
	}
	return t.settle(a)
}

// excused counts the failed requests the share left out (checks'
// "excused" metric).
func excused(rs []checks.Result) int {
	n := 0
	for _, r := range rs {
		n += int(r.Metrics["excused"])
	}
	return n
}

// worstOf is the lowest share answered and the longest outage, with the
// targets they were seen on.
func worstOf(measured []checks.Result) string {
	worst, outage := extreme(measured, "availability", false), extreme(measured, "longest_outage_seconds", true)
	if worst.Metrics["availability"] == 1 && outage.Metrics["longest_outage_seconds"] == 0 && excused(measured) == 0 {
		return "every request answered"
	}
	return fmt.Sprintf("%.2f %% at worst (%s), longest outage %s (%s)", 100*worst.Metrics["availability"], worst.Subject,
		seconds2(outage.Metrics["longest_outage_seconds"]), outage.Subject)
}

// splitMeasured tells the targets whose availability was measured from
// those probed that never answered before the end (a load balancer created
// as observation ended: not judged, whatever their row says) and from a
// bare result (nothing to probe).
func splitMeasured(rs []checks.Result) (measured, young, bare []checks.Result) {
	for _, r := range rs {
		_, ok := r.Metrics["availability"]
		_, probed := r.Metrics["requests"]
		switch {
		case ok || !r.Passed:
			measured = append(measured, r)
		case probed:
			r.Skipped = "none answered yet as observation ended"
			young = append(young, r)
		default:
			bare = append(bare, r)
		}
	}
	return measured, young, bare
}

// limits are the availability thresholds a result was judged by.
func limits(r checks.Result) string {
	if _, ok := r.Metrics["min_availability"]; !ok {
		return "thresholds not recorded"
	}
	return fmt.Sprintf("minimum %.2f %%, longest outage allowed %s", 100*r.Metrics["min_availability"], seconds2(r.Metrics["max_outage_seconds"]))
}

// extreme is the result with the largest (most) or smallest value of a
// metric; the first on a tie.
func extreme(rs []checks.Result, metric string, most bool) checks.Result {
	best := rs[0]
	for _, r := range rs[1:] {
		v, b := r.Metrics[metric], best.Metrics[metric]
		if most && v > b || !most && v < b {
			best = r
		}
	}
	return best
}

// thresholdOf is "the 40s threshold" a result recorded, or fallback.
func thresholdOf(r checks.Result, metric, fallback string) string {
	if v, ok := r.Metrics[metric]; ok {
		return "the " + seconds2(v) + " threshold"
	}
	return fallback
}

// seconds2 prints seconds as a duration the way the checks do, to the
// tenth of a second.
func seconds2(s float64) string {
	return time.Duration(s * float64(time.Second)).Round(100 * time.Millisecond).String()
}

// spanned is how long violations lasted together, a time two of them
// share counted once.
func spanned(vs []checks.Violation) time.Duration {
	sorted := slices.Clone(vs)
	slices.SortFunc(sorted, func(a, b checks.Violation) int { return a.From.Compare(b.From) })
	var total time.Duration
	var end time.Time
	for _, v := range sorted {
		from := v.From
		if from.Before(end) {
			from = end
		}
		if v.To.After(from) {
			total += v.To.Sub(from)
			end = v.To
		}
	}
	return total.Round(100 * time.Millisecond)
}

// messages are failed results' first violations, subject by subject.
func messages(rs []checks.Result) string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Subject+": "+firstMessage(r))
	}
	return firstFew(out, 3)
}
