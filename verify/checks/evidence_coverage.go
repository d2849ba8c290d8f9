package checks

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/timeline"
)

// expected is when each of a poller's instances must be sampled: a manager
// or an API server only while its control plane exists (cps), the
// endpoint whenever a procedure ran.
func (o observer) expected(cps map[string][][2]time.Time, runs [][2]time.Time) map[string][][2]time.Time {
	out := map[string][][2]time.Time{}
	if o.scope == perAPIServer {
		out["endpoint"] = runs
	}
	for node, ws := range cps {
		if o.scope == perAPIServer {
			out[node] = ws
			continue
		}
		for _, m := range managers.Names() {
			out[m+"@"+node] = ws
		}
	}
	return out
}

// expectedFixed is what a poller owes when the observers were told what to
// sample: each manager given, the endpoint alone, for every run — a manager
// found while observing from when it was found (since).
func (o observer) expectedFixed(managers []string, since map[string]time.Time, runs [][2]time.Time) map[string][][2]time.Time {
	out := map[string][][2]time.Time{}
	switch o.scope {
	case perAPIServer:
		out["endpoint"] = runs
	case perManager:
		for _, m := range managers {
			out[m] = after(runs, since[m])
		}
	}
	return out
}

// after are the windows from t on (all of them for a zero t).
func after(ws [][2]time.Time, t time.Time) [][2]time.Time {
	var out [][2]time.Time
	for _, w := range ws {
		if w[1].After(t) {
			out = append(out, [2]time.Time{later(w[0], t), w[1]})
		}
	}
	return out
}

// fixedManagers reads the managers the observers were given or found
// (manager@instance), when observer.start says they were, and when each
// found while observing was found (observer.managers).
func fixedManagers(evs []timeline.Event) (names []string, since map[string]time.Time, fixed bool) {
	seen := map[string]bool{}
	since = map[string]time.Time{}
	for _, e := range evs {
		v, ok := e.Attrs[timeline.FixedManagers]
		if !ok || (e.Kind != timeline.ObserverStart && e.Kind != timeline.ManagersFound) {
			continue
		}
		fixed = fixed || e.Kind == timeline.ObserverStart
		for _, m := range strings.Split(v, ",") {
			if m == "" || seen[m] {
				continue
			}
			seen[m] = true
			if e.Kind == timeline.ManagersFound {
				since[m] = e.Time
			}
		}
	}
	if !fixed {
		return nil, nil, false
	}
	return sortedKeys(seen), since, true
}

// coverage: the poller sampled while the procedure ran, and no expected
// instance went unsampled for longer than the tolerance. A manager that is
// down still answers the poller with up=false: silence is the observer's.
func (o observer) coverage(samples map[string][]time.Time, want map[string][][2]time.Time, runs [][2]time.Time, u unanswered) Result {
	tol := holeTolerance(o.period)
	n := 0
	for _, ts := range samples {
		for _, r := range runs {
			n += len(between(ts, r))
		}
	}
	if run := outer(runs); n == 0 {
		return result(Evidence, o.name, []Violation{{From: run[0], To: run[1], Sources: []string{o.name},
			Message: fmt.Sprintf("blind: the %s observer recorded no %s while the procedure ran (%s – %s)", o.name, o.unit, clock(run[0]), clock(run[1]))}},
			"no sample while the procedure ran", map[string]float64{"samples": 0})
	}
	var vs []Violation
	var longest time.Duration
	for _, inst := range sortedKeys(want) {
		for _, w := range want[inst] {
			for _, h := range silences(samples[inst], w) {
				if longest = max(longest, h[1].Sub(h[0])); h[1].Sub(h[0]) > tol {
					vs = append(vs, o.hole(inst, w, h, tol, len(between(samples[inst], w)) == 0))
				}
			}
		}
	}
	// Attempts are not answers: a manager that never answered shows as
	// many samples as one that always did.
	summary := fmt.Sprintf("%d of %d samples answered, of %d instances, while the procedure ran; longest hole %s (tolerance %s)",
		n-u.n, n, len(want), longest.Round(10*time.Millisecond), tol)
	if u.n > 0 {
		summary += fmt.Sprintf("; unanswered from %s on: %s", clock(u.first), u.why)
	}
	return result(Evidence, o.name, vs, summary,
		map[string]float64{"samples": float64(n), "answered": float64(n - u.n), "instances": float64(len(want)), "longest_hole_seconds": longest.Seconds()})
}

// unanswered are the samples taken while a procedure ran that got no
// answer (an error instead: a refused connection, a timeout), the first
// of them, and its error.
type unanswered struct {
	n     int
	first time.Time
	why   string
}

func (o observer) unanswered(evs []timeline.Event, runs [][2]time.Time) unanswered {
	var u unanswered
	for _, e := range evs {
		why := e.Attrs["error"]
		if why == "" || !o.matches(e) || !within(runs, e.Time) {
			continue
		}
		if u.n++; u.first.IsZero() || e.Time.Before(u.first) {
			u.first, u.why = e.Time, why
		}
	}
	return u
}

func (o observer) hole(inst string, w, h [2]time.Time, tol time.Duration, none bool) Violation {
	msg := fmt.Sprintf("blind: no %s of %s from %s to %s (%s; tolerance %s)",
		o.unit, inst, clock(h[0]), clock(h[1]), h[1].Sub(h[0]).Round(10*time.Millisecond), tol)
	if none {
		msg = fmt.Sprintf("blind: no %s of %s at all while it was expected, %s to %s", o.unit, inst, clock(h[0]), clock(h[1]))
	}
	return Violation{From: h[0], To: h[1], Sources: []string{o.name}, Message: msg,
		Evidence: []string{fmt.Sprintf("expected %s – %s (within the procedure, while its node exists)", clock(w[0]), clock(w[1]))}}
}

// silences are the stretches of w between samples in ts (sorted), the
// edges included.
func silences(ts []time.Time, w [2]time.Time) [][2]time.Time {
	var out [][2]time.Time
	prev := w[0]
	for _, t := range between(ts, w) {
		out = append(out, [2]time.Time{prev, t})
		prev = t
	}
	return append(out, [2]time.Time{prev, w[1]})
}

// between is the part of ts (sorted) within w.
func between(ts []time.Time, w [2]time.Time) []time.Time {
	i := sort.Search(len(ts), func(i int) bool { return !ts[i].Before(w[0]) })
	j := sort.Search(len(ts), func(i int) bool { return ts[i].After(w[1]) })
	return ts[i:j]
}

func sortTimes(ts []time.Time) {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
