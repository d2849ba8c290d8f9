package checks

import (
	"time"

	"github.com/handover-sh/handover/timeline"
)

// ObserverCoverage is when one observer recorded evidence, for the report
// to draw beside what was judged from it.
type ObserverCoverage struct {
	// Name is the observer, as CheckEvidence's results name it.
	Name string
	// Spans are the stretches it covered: a poller's samples no further
	// apart than its hole tolerance, merged over its instances; an
	// event-driven observer's events, each an instant.
	Spans  [][2]time.Time
	Events int
}

// Coverage is every observer's coverage, in the order CheckEvidence
// judges them.
func Coverage(evs []timeline.Event) []ObserverCoverage {
	out := make([]ObserverCoverage, 0, len(observers))
	for _, o := range observers {
		o = o.declared(evs)
		var ts []time.Time
		for _, e := range evs {
			if o.matches(e) {
				ts = append(ts, e.Time)
			}
		}
		sortTimes(ts)
		gap := time.Duration(0)
		if o.need == noHoles {
			gap = holeTolerance(o.period)
		}
		out = append(out, ObserverCoverage{Name: o.name, Spans: merge(ts, gap), Events: len(ts)})
	}
	return out
}

// merge joins sorted instants no further apart than gap into spans.
func merge(ts []time.Time, gap time.Duration) [][2]time.Time {
	var out [][2]time.Time
	for _, t := range ts {
		if n := len(out); n > 0 && t.Sub(out[n-1][1]) <= gap {
			out[n-1][1] = t
			continue
		}
		out = append(out, [2]time.Time{t, t})
	}
	return out
}
