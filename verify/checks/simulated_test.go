package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

// A scale rehearsal's simulated nodes are judged together: one result per
// check, failing when one of them fails and naming it; real nodes keep a
// result each.
func TestSimulatedNodesAreJudgedTogether(t *testing.T) {
	evs := window(0, 100)
	evs = append(evs, nodeEv(0, timeline.NodeAdded, "w1", "kind://docker/c/w1", ""))
	for i := range 30 {
		name := fmt.Sprintf("sim-node-%04d", i)
		evs = append(evs, timeline.Event{Time: at(1), Kind: timeline.ScaleJoin, Node: name, Attrs: map[string]string{"mode": "external"}},
			nodeEv(2, timeline.NodeAdded, name, "", uninitializedTaint))
		if i != 7 { // one is never initialised
			evs = append(evs, nodeEv(5, timeline.NodeChanged, name, "kind://docker/c/"+name, ""))
		}
	}
	rs := foldSimulated(evs, append(CheckProviderIDs(evs, cfg), CheckUninitializedTaint(evs, cfg)...))
	if len(rs) != 4 {
		t.Fatalf("%d results, want w1's and the fleet's for each of two checks: %+v", len(rs), rs)
	}
	if r := one(t, rs, "w1"); !r.Passed {
		t.Errorf("w1: %+v", r)
	}
	for _, r := range rs[1:] {
		if r.Subject == "w1" {
			continue
		}
		if r.Subject != "30 simulated nodes" || r.Passed || r.Summary != "29 passed, 1 failed, 0 not judged, 0 not observed" || len(r.Violations) != 1 ||
			!strings.HasPrefix(r.Violations[0].Message, "sim-node-0007: ") {
			t.Errorf("folded %s: %+v", r.Check, r)
		}
	}
	all := append(evs, nodeEv(9, timeline.NodeChanged, "sim-node-0007", "kind://docker/c/sim-node-0007", ""))
	green := foldSimulated(all, CheckProviderIDs(all, cfg))
	for _, r := range green {
		if !r.Passed {
			t.Errorf("all initialised, yet %+v", r)
		}
	}
}

// Beyond a score of violations, the folded result says how many more.
func TestFoldedViolationsAreCapped(t *testing.T) {
	evs := window(0, 100)
	for i := range 50 {
		name := fmt.Sprintf("sim-node-%04d", i)
		evs = append(evs, timeline.Event{Time: at(1), Kind: timeline.ScaleJoin, Node: name}, nodeEv(2, timeline.NodeAdded, name, "", uninitializedTaint))
	}
	rs := foldSimulated(evs, CheckProviderIDs(evs, cfg))
	if len(rs) != 1 || len(rs[0].Violations) != maxFoldedViolations+1 || !strings.Contains(rs[0].Violations[maxFoldedViolations].Message, "and 30 more") {
		t.Fatalf("%+v", rs)
	}
}

// A node that joined but was never observed leaves its checks unproven,
// not passed; nodes that were all skipped stay skipped, never passed.
func TestUnobservedSimulatedNodesFail(t *testing.T) {
	evs := window(0, 100)
	for i := range 3 {
		name := fmt.Sprintf("sim-node-%04d", i)
		evs = append(evs, timeline.Event{Time: at(1), Kind: timeline.ScaleJoin, Node: name})
		if i > 0 { // sim-node-0000 never seen
			evs = append(evs, nodeEv(2, timeline.NodeAdded, name, "kind://docker/c/"+name, ""))
		}
	}
	rs := foldSimulated(evs, CheckProviderIDs(evs, cfg))
	if len(rs) != 1 || rs[0].Passed || !strings.Contains(rs[0].Summary, "1 not observed") ||
		!strings.Contains(rs[0].Violations[len(rs[0].Violations)-1].Message, "sim-node-0000") {
		t.Fatalf("%+v", rs)
	}
	skipped := []Result{{Check: NodeDeletion, Subject: "sim-node-0000", Passed: true, Skipped: "cloud out of reach"},
		{Check: NodeDeletion, Subject: "sim-node-0001", Passed: true, Skipped: "cloud out of reach"},
		{Check: NodeDeletion, Subject: "sim-node-0002", Passed: true, Skipped: "cloud out of reach"}}
	if rs := foldSimulated(evs, skipped); len(rs) != 1 || !rs[0].Passed || rs[0].Skipped == "" {
		t.Fatalf("all skipped: %+v", rs)
	}
	skipped[0].Skipped = ""
	if rs := foldSimulated(evs, skipped); rs[0].Skipped != "" || rs[0].Summary != "1 passed, 0 failed, 2 not judged, 0 not observed" {
		t.Fatalf("some judged: %+v", rs)
	}
}
