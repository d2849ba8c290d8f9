package checks

import (
	"maps"
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

// metaNode is node w1's state at sec with the attributes changed as given.
func metaNode(sec float64, kind string, change map[string]string) timeline.Event {
	e := node(sec, kind, "w1", "")
	e.Attrs = maps.Clone(e.Attrs)
	maps.Copy(e.Attrs, change)
	return e
}

func TestNodeMetadata(t *testing.T) {
	run := []timeline.Event{{Time: at(1), Source: "runner", Kind: timeline.RunStart}, {Time: at(1.5), Source: "runner", Kind: timeline.StepStart, Step: "grant", Index: 1},
		{Time: at(60), Source: "runner", Kind: timeline.RunEnd, Outcome: timeline.OK}}
	for _, tc := range []struct {
		name, want string // want: "" passes, "not judged: …", or what the failure says
		evs        []timeline.Event
	}{
		{"the same before and after", "", []timeline.Event{metaNode(0.5, timeline.NodeAdded, nil), metaNode(30, timeline.NodeChanged, map[string]string{"taints": "x"})}},
		{"addresses changed", `addresses changed from "Hostname=w1,`, []timeline.Event{metaNode(0.5, timeline.NodeAdded, nil),
			metaNode(30, timeline.NodeChanged, map[string]string{"addresses": "InternalIP=172.18.0.9"})}},
		{"zone label changed", `zone changed from "sim-zone-a" to "sim-zone-b"`, []timeline.Event{metaNode(0.5, timeline.NodeAdded, nil),
			metaNode(30, timeline.NodeChanged, map[string]string{"zone": "sim-zone-b"})}},
		{"instance type label gone", `instanceType changed from "sim.node" to ""`, []timeline.Event{metaNode(0.5, timeline.NodeAdded, nil),
			metaNode(30, timeline.NodeChanged, map[string]string{"instanceType": ""})}},
		{"a change undone before the end", `zone changed from "sim-zone-a" to "sim-zone-b" during the procedure and back (1 time(s))`, []timeline.Event{metaNode(0.5, timeline.NodeAdded, nil),
			metaNode(20, timeline.NodeChanged, map[string]string{"zone": "sim-zone-b"}), metaNode(40, timeline.NodeChanged, nil)}},
		{"node IP flapping between two writers", `addresses changed from "InternalIP=172.18.0.4,InternalIP=100.64.7.4" to "InternalIP=100.64.7.4,InternalIP=172.18.0.4" during the procedure and back (2 time(s))`, []timeline.Event{
			metaNode(0.5, timeline.NodeAdded, map[string]string{"addresses": "InternalIP=172.18.0.4,InternalIP=100.64.7.4"}),
			metaNode(20, timeline.NodeChanged, map[string]string{"addresses": "InternalIP=100.64.7.4,InternalIP=172.18.0.4"}),
			metaNode(25, timeline.NodeChanged, map[string]string{"addresses": "InternalIP=172.18.0.4,InternalIP=100.64.7.4"}),
			metaNode(45, timeline.NodeChanged, map[string]string{"addresses": "InternalIP=100.64.7.4,InternalIP=172.18.0.4"}),
			metaNode(50, timeline.NodeChanged, map[string]string{"addresses": "InternalIP=172.18.0.4,InternalIP=100.64.7.4"})}},
		{"other attributes changing meanwhile", "", []timeline.Event{metaNode(0.5, timeline.NodeAdded, nil),
			metaNode(20, timeline.NodeChanged, map[string]string{"taints": "x", "podCIDRs": "10.244.3.0/24"}), metaNode(40, timeline.NodeChanged, nil)}},
		{"joined during the procedure", "not judged: joined or went during the procedure", []timeline.Event{metaNode(10, timeline.NodeAdded, nil),
			metaNode(30, timeline.NodeChanged, map[string]string{"zone": "sim-zone-b"})}},
		{"deleted and registered again", "not judged: joined or went during the procedure", []timeline.Event{metaNode(0.5, timeline.NodeAdded, nil),
			metaNode(20, timeline.NodeDeleted, nil), metaNode(30, timeline.NodeAdded, map[string]string{"zone": "sim-zone-b"})}},
		{"listed just after the run began, before its first step", "", []timeline.Event{metaNode(1.2, timeline.NodeAdded, nil), metaNode(30, timeline.NodeChanged, map[string]string{"taints": "x"})}},
		{"no addresses recorded", "unproven: the node watch recorded Nodes but no addresses", []timeline.Event{
			{Time: at(0.5), Source: "nodes", Kind: timeline.NodeAdded, Node: "w1", Attrs: map[string]string{"providerID": "p"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := CheckNodeMetadata(join(run, tc.evs), cfg)
			if len(rs) != 1 {
				t.Fatalf("%d results: %+v", len(rs), rs)
			}
			r := rs[0]
			switch {
			case tc.want == "":
				if !r.Passed || r.Skipped != "" || r.Subject != "w1" {
					t.Fatalf("want w1 judged and passed: %+v", r)
				}
			case strings.HasPrefix(tc.want, "not judged: "):
				if !r.Passed || !strings.HasPrefix(r.Summary, tc.want) {
					t.Fatalf("want %q: %+v", tc.want, r)
				}
			default:
				if r.Passed || !strings.Contains(r.Violations[0].Message, tc.want) {
					t.Fatalf("want a failure saying %q: %+v", tc.want, r)
				}
			}
		})
	}
}
