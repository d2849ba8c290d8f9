package checks

import (
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// controlPlaneTaint marks a control plane among the Nodes (kind leaves it
// off when there are no workers: the pollers' own samples name them too).
const controlPlaneTaint = "node-role.kubernetes.io/control-plane"

var endOfTime = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// runWindows are when the procedures ran: each run from its run.start to
// its run.end. A run killed before its end ran until its last sign of life
// (the last event before the next run or the next observing process
// starts). The time between runs is not judged: a resumed migration may
// come back hours later. Without a run, the whole observation.
func runWindows(evs []timeline.Event) [][2]time.Time {
	var starts, ends, sessions, all []time.Time
	for _, e := range evs {
		all = append(all, e.Time)
		switch e.Kind {
		case timeline.RunStart:
			starts = append(starts, e.Time)
		case timeline.RunEnd:
			ends = append(ends, e.Time)
		case timeline.ObserverStart:
			sessions = append(sessions, e.Time)
		}
	}
	if len(starts) == 0 {
		from, to := span(evs)
		return [][2]time.Time{{from, to}}
	}
	for _, ts := range [][]time.Time{starts, ends, sessions, all} {
		sortTimes(ts)
	}
	out := make([][2]time.Time, 0, len(starts))
	for i, s := range starts {
		next := endOfTime
		if i+1 < len(starts) {
			next = starts[i+1]
		}
		if newer := between(sessions, [2]time.Time{s.Add(time.Nanosecond), next}); len(newer) > 0 {
			next = newer[0]
		}
		out = append(out, [2]time.Time{s, runEnd(s, next, ends, all)})
	}
	return out
}

// runEnd is the end of the run started at s: its run.end before next, or
// else the last event before next.
func runEnd(s, next time.Time, ends, all []time.Time) time.Time {
	w := [2]time.Time{s, next.Add(-time.Nanosecond)}
	if in := between(ends, w); len(in) > 0 {
		return in[0]
	}
	if in := between(all, w); len(in) > 0 {
		return in[len(in)-1]
	}
	return s
}

// controlPlaneWindows are, per control plane, the parts of the runs in
// which its managers and API server must be sampled: while its Node exists
// (node.added to node.deleted), until the runner announces its removal,
// and outside a planned disruption. A control plane the node watch never
// saw counts from its first to its last sample by any poller, if anything
// ever answered under its name: a name no Node had and nothing answered to
// is a machine sampled before its kubelet named it (a cloud's kubelet may
// name its Node otherwise than its container), not a control plane.
func controlPlaneWindows(evs []timeline.Event, runs [][2]time.Time) map[string][][2]time.Time {
	life := nodeLifetimes(evs)
	cuts := disruptions(evs)
	answered := answeredNames(evs)
	out := map[string][][2]time.Time{}
	for n, seen := range controlPlaneSightings(evs) {
		ws := life[n]
		if len(ws) == 0 && !answered[n] {
			continue
		}
		if len(ws) == 0 {
			ws = [][2]time.Time{seen}
		}
		if ws = clip(subtract(ws, cuts[n]), runs); len(ws) > 0 {
			out[n] = ws
		}
	}
	return out
}

// answeredNames are the instances a manager or an API server answered
// under at least once.
func answeredNames(evs []timeline.Event) map[string]bool {
	out := map[string]bool{}
	for _, e := range evs {
		switch {
		case (e.Kind == timeline.Health || e.Kind == timeline.Metrics) && e.Attrs["up"] == "true":
			out[e.Instance] = true
		case e.Kind == timeline.Probe && e.Attrs["kind"] == "api" && e.Attrs["ok"] == "true":
			out[e.Attrs["node"]] = true
		}
	}
	return out
}

// controlPlaneSightings: every node that is a control plane by its taint
// or by the pollers sampling it, with its first and last sighting.
func controlPlaneSightings(evs []timeline.Event) map[string][2]time.Time {
	out := map[string][2]time.Time{}
	for _, e := range evs {
		n := ""
		switch {
		case e.Kind == timeline.Health || e.Kind == timeline.Metrics:
			n = e.Instance
		case e.Kind == timeline.Probe && e.Attrs["kind"] == "api":
			n = e.Attrs["node"]
		case e.Kind == timeline.NodeAdded || e.Kind == timeline.NodeChanged:
			if strings.Contains(e.Attrs["taints"], controlPlaneTaint) {
				n = e.Node
			}
		}
		if n == "" {
			continue
		}
		s, ok := out[n]
		if !ok {
			s = [2]time.Time{e.Time, e.Time}
		}
		out[n] = [2]time.Time{earlier(s[0], e.Time), later(s[1], e.Time)}
	}
	return out
}

// nodeLifetimes are each Node's spans from added (or first changed) to
// deleted, open-ended while it still exists; each observing process's own
// spans, since a Node may go while nothing watches.
func nodeLifetimes(evs []timeline.Event) map[string][][2]time.Time {
	out := map[string][][2]time.Time{}
	open := map[string]time.Time{}
	closeAll := func(at time.Time) {
		for n, from := range open {
			out[n] = append(out[n], [2]time.Time{from, at})
			delete(open, n)
		}
	}
	for _, e := range evs {
		switch e.Kind {
		case timeline.ObserverStart: // a new observing process lists the Nodes afresh
			closeAll(e.Time)
		case timeline.NodeAdded, timeline.NodeChanged:
			if _, ok := open[e.Node]; !ok {
				open[e.Node] = e.Time
			}
		case timeline.NodeDeleted:
			if from, ok := open[e.Node]; ok {
				out[e.Node] = append(out[e.Node], [2]time.Time{from, e.Time})
				delete(open, e.Node)
			}
		}
	}
	closeAll(endOfTime)
	return out
}

// subtract cuts every window of cuts out of ws.
func subtract(ws, cuts [][2]time.Time) [][2]time.Time {
	for _, c := range cuts {
		var next [][2]time.Time
		for _, w := range ws {
			if !c[1].After(w[0]) || !c[0].Before(w[1]) {
				next = append(next, w)
				continue
			}
			if c[0].After(w[0]) {
				next = append(next, [2]time.Time{w[0], c[0]})
			}
			if c[1].Before(w[1]) {
				next = append(next, [2]time.Time{c[1], w[1]})
			}
		}
		ws = next
	}
	return ws
}

// clip keeps the parts of ws within any of runs.
func clip(ws, runs [][2]time.Time) [][2]time.Time {
	var out [][2]time.Time
	for _, r := range runs {
		for _, x := range ws {
			if from, to := later(x[0], r[0]), earlier(x[1], r[1]); to.After(from) {
				out = append(out, [2]time.Time{from, to})
			}
		}
	}
	return out
}
