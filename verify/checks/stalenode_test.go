package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

func terminate(sec float64, node string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "load", Kind: timeline.NodeRemove, Node: node,
		Attrs: map[string]string{"instance": "terminated"}, Message: "the load terminates its instance in the cloud"}
}

func nodeGone(sec float64, node string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "nodes", Kind: timeline.NodeDeleted, Node: node, Attrs: map[string]string{"instance": "gone"}}
}

// A Node whose instance was terminated must go within max-stale-node:
// in time it passes; late, or still there past the bound, it fails; still
// there when the observation ended sooner, it is unproven; the runner's
// own removals are not its business.
func TestStaleNodes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		evs    []timeline.Event
		passed bool
		want   string
	}{
		{"deleted in time", join(window(0, 300), []timeline.Event{terminate(60, "w3"), nodeGone(110, "w3")}), true, "deleted 50s after"},
		{"deleted late", join(window(0, 400), []timeline.Event{terminate(60, "w3"), nodeGone(300, "w3")}), false, "stayed 4m0s"},
		{"never deleted", join(window(0, 400), []timeline.Event{terminate(60, "w3")}), false, "stayed 5m40s"},
		{"observation too short", join(window(0, 120), []timeline.Event{terminate(60, "w3")}), false, "unproven: the observation ended 1m0s after"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, CheckStaleNodes(tc.evs, cfg), "w3")
			text := r.Summary
			for _, v := range r.Violations {
				text += " " + v.Message
			}
			if r.Passed != tc.passed || !strings.Contains(text, tc.want) {
				t.Errorf("passed %t (%s), want %t and %q", r.Passed, text, tc.passed, tc.want)
			}
		})
	}
	runner := join(window(0, 300), []timeline.Event{{Time: at(60), Source: "runner", Kind: timeline.NodeRemove, Node: "cp-1"}})
	if r := one(t, CheckStaleNodes(runner, cfg), "nodes"); !r.Passed || r.Skipped == "" {
		t.Errorf("no termination: %+v, want not judged", r)
	}
	slow := cfg
	if err := slow.Set("max-stale-node", "5m"); err != nil {
		t.Fatal(err)
	}
	if r := one(t, CheckStaleNodes(join(window(0, 400), []timeline.Event{terminate(60, "w3"), nodeGone(300, "w3")}), slow), "w3"); !r.Passed {
		t.Errorf("4 min within a threshold of 5m: %+v", r)
	}
}
