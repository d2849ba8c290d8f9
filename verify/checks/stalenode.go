package checks

import (
	"fmt"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// StaleNode is the check that a Node whose instance the cloud no longer
// has goes, whichever manager runs the cloud-node-lifecycle controller by
// then (kubernetes/cloud-provider-aws#916: stale Nodes stayed when that
// controller was between managers).
const StaleNode = "stale-node"

// CheckStaleNodes: every Node whose instance was terminated is deleted
// within MaxStale of the termination. A Node still there when the
// observation ended sooner than that is unproven; with no instance
// terminated there is nothing to judge.
func CheckStaleNodes(evs []timeline.Event, cfg Config) []Result {
	terminated := terminations(evs)
	if len(terminated) == 0 {
		return []Result{notJudged(StaleNode, "nodes", "no instance was terminated while observed")}
	}
	_, end := span(evs)
	var out []Result
	for _, t := range terminated {
		gone, ok := deletedAfter(evs, t.Node, t.Time.Add(-cfg.Tolerance))
		bound := cfg.threshold("max-stale-node", cfg.MaxStale)
		switch {
		case ok && gone.Sub(t.Time) <= cfg.MaxStale:
			out = append(out, result(StaleNode, t.Node, nil, fmt.Sprintf("deleted %s after its instance was terminated (threshold %s)",
				gone.Sub(t.Time).Round(100*time.Millisecond), bound), map[string]float64{"seconds": gone.Sub(t.Time).Seconds()}))
		case ok || end.Sub(t.Time) > cfg.MaxStale:
			until := end
			if ok {
				until = gone
			}
			v := Violation{From: t.Time, To: until, Sources: []string{"nodes"},
				Message:  fmt.Sprintf("the Node stayed %s after its instance was terminated (threshold %s)", until.Sub(t.Time).Round(100*time.Millisecond), bound),
				Evidence: []string{fmt.Sprintf("%s %s %s", clock(t.Time), t.Kind, t.Message), staleEnd(ok, until)}}
			out = append(out, result(StaleNode, t.Node, []Violation{v}, v.Message, map[string]float64{"seconds": until.Sub(t.Time).Seconds()}))
		default:
			out = append(out, unproven(evs, StaleNode, t.Node, fmt.Sprintf("the observation ended %s after its instance was terminated, with the Node still there, before the threshold of %s",
				end.Sub(t.Time).Round(100*time.Millisecond), bound)))
		}
	}
	return out
}

// terminations are the announced removals of nodes whose instance was
// terminated (the cluster's controllers are to delete the Node), the
// first of each node; a node the runner takes away it deletes itself.
func terminations(evs []timeline.Event) []timeline.Event {
	var out []timeline.Event
	seen := map[string]bool{}
	for _, e := range evs {
		if e.Kind == timeline.NodeRemove && e.Attrs["instance"] == "terminated" && !seen[e.Node] {
			seen[e.Node] = true
			out = append(out, e)
		}
	}
	return out
}

// deletedAfter is when the node watch first saw Node n deleted after t.
func deletedAfter(evs []timeline.Event, n string, t time.Time) (time.Time, bool) {
	for _, e := range evs {
		if e.Kind == timeline.NodeDeleted && e.Node == n && !e.Time.Before(t) {
			return e.Time, true
		}
	}
	return time.Time{}, false
}

func staleEnd(deleted bool, at time.Time) string {
	if deleted {
		return clock(at) + " " + timeline.NodeDeleted
	}
	return clock(at) + " the observation ended with the Node still there"
}
