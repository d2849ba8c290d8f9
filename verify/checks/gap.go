package checks

import (
	"fmt"
	"sort"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// CheckCoverageGap: per controller, the longest time no manager possibly
// ran it, within the observation (edges included), against cfg.MaxGap.
func CheckCoverageGap(evs []timeline.Event, cfg Config) []Result {
	act := healthActivity(evs)
	from, to := span(evs)
	samples := countKind(evs, timeline.Health)
	var out []Result
	for _, c := range cfg.Controllers {
		if samples == 0 {
			out = append(out, unproven(evs, CoverageGap, c, "no health sample: which manager ran it, and when, is unknown"))
			continue
		}
		gaps := uncovered(act.possible[c], from, to)
		longest := time.Duration(0)
		var vs []Violation
		for _, g := range gaps {
			d := g[1].Sub(g[0])
			if d > longest {
				longest = d
			}
			if d > cfg.MaxGap {
				vs = append(vs, Violation{From: g[0], To: g[1], Sources: []string{"health"},
					Message:  fmt.Sprintf("no manager ran it for %s (threshold %s)", d.Round(100*time.Millisecond), cfg.MaxGap),
					Evidence: []string{lastBefore(act.possible[c], g[0]), firstAfter(act.possible[c], g[1])}})
			}
		}
		out = append(out, result(CoverageGap, c, vs,
			fmt.Sprintf("longest gap %s (threshold %s; %d health samples)", longest.Round(100*time.Millisecond), cfg.threshold("max-gap", cfg.MaxGap), samples),
			map[string]float64{"longest_gap_seconds": longest.Seconds(), "max_gap_seconds": cfg.MaxGap.Seconds()}))
	}
	return out
}

// uncovered returns the spans of [from, to] no interval covers.
func uncovered(ivs []RunSpan, from, to time.Time) [][2]time.Time {
	sorted := append([]RunSpan(nil), ivs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].From.Before(sorted[j].From) })
	var out [][2]time.Time
	cursor := from
	for _, iv := range sorted {
		if iv.From.After(cursor) {
			out = append(out, [2]time.Time{cursor, earlier(iv.From, to)})
		}
		cursor = later(cursor, iv.To)
		if !cursor.Before(to) {
			return out
		}
	}
	if cursor.Before(to) {
		out = append(out, [2]time.Time{cursor, to})
	}
	return out
}

func lastBefore(ivs []RunSpan, t time.Time) string {
	best := RunSpan{}
	for _, iv := range ivs {
		if !iv.To.After(t) && iv.To.After(best.To) {
			best = iv
		}
	}
	if best.Manager == "" {
		return "health: no manager ran it before the gap"
	}
	return fmt.Sprintf("health: last seen in %s@%s at %s", best.Manager, best.Instance, clock(best.To))
}

func firstAfter(ivs []RunSpan, t time.Time) string {
	var best *RunSpan
	for i, iv := range ivs {
		if !iv.From.Before(t) && (best == nil || iv.From.Before(best.From)) {
			best = &ivs[i]
		}
	}
	if best == nil {
		return "health: no manager ran it after the gap"
	}
	return fmt.Sprintf("health: next seen in %s@%s at %s", best.Manager, best.Instance, clock(best.From))
}
