package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

const echoInRegistry = "000000000000.dkr.ecr.sim-region-1.amazonaws.com/handover/echo:v1"

func loadPulling(sec float64) timeline.Event {
	return timeline.Event{Time: at(sec), Kind: timeline.LoadStart, Attrs: map[string]string{"profile": "moderate", timeline.PullImage: echoInRegistry,
		timeline.PullEvery: "30s", timeline.PullLimit: "45s"}}
}

func pull(sec float64, node string, ok bool, why string) timeline.Event {
	o := "true"
	if !ok {
		o = "false"
	}
	return timeline.Event{Time: at(sec), Kind: timeline.ImagePull, Node: node,
		Attrs: map[string]string{"image": echoInRegistry, "ok": o, "error": why, "ms": "1500"}}
}

// Pulls that all started their pods pass; a node whose kubelet could not
// pull after it came up fails with the kubelet's reason; a load that was
// to pull and recorded none is unproven; no registry, not judged.
func TestImagePulls(t *testing.T) {
	evs := join(window(0, 300), []timeline.Event{loadPulling(1), pull(10, "cp-1", true, ""), pull(10, "w-1", true, ""),
		pull(40, "w-1", true, ""), pull(150, "cp-4", false, `ErrImagePull: failed to pull and unpack image: unexpected status code 401 Unauthorized`),
		pull(180, "cp-4", false, "ImagePullBackOff: Back-off pulling image"),
		// w-3's instance is terminated while its pull is under way: not judged.
		{Time: at(200), Kind: timeline.NodeRemove, Node: "w-3", Attrs: map[string]string{"instance": "terminated"}},
		pull(230, "w-3", false, "no pull within 45s")})
	rs := CheckImagePulls(evs, cfg)
	for _, r := range rs {
		if r.Subject == "w-3" {
			t.Errorf("a pull on a node being taken away judged: %+v", r)
		}
	}
	if r := one(t, rs, "w-1"); !r.Passed || !strings.Contains(r.Summary, "2 of 2 pull(s)") {
		t.Errorf("w-1: %+v", r)
	}
	r := one(t, rs, "cp-4")
	if r.Passed || len(r.Violations) != 2 || !strings.Contains(r.Violations[0].Message, "401 Unauthorized") || r.Unproven() {
		t.Errorf("cp-4: %+v", r)
	}
	// A Node there for most of the load with no pull recorded is
	// evidence missing; one there too briefly for two rounds is said not
	// judged; a scale rehearsal's simulated node is never pulled on.
	seen := join(evs, []timeline.Event{{Time: at(100), Kind: timeline.NodeAdded, Node: "cp-5"}, {Time: at(250), Kind: timeline.NodeAdded, Node: "cp-6"},
		{Time: at(100), Kind: timeline.ScaleJoin, Node: "kwok-1"}, {Time: at(100), Kind: timeline.NodeAdded, Node: "kwok-1"},
		{Time: at(290), Kind: timeline.LoadStop}})
	if r := one(t, CheckImagePulls(seen, cfg), "cp-5"); r.Passed || !r.Unproven() {
		t.Errorf("a Node never pulled on: %+v", r)
	}
	if r := one(t, CheckImagePulls(seen, cfg), "cp-6"); !r.Passed || !strings.Contains(r.Skipped, "no round of pulls reached it in its 40s") {
		t.Errorf("a Node there 40 s: %+v", r)
	}
	for _, r := range CheckImagePulls(seen, cfg) {
		if r.Subject == "kwok-1" {
			t.Errorf("a simulated node judged: %+v", r)
		}
	}
	if r := one(t, CheckImagePulls(join(window(0, 300), []timeline.Event{loadPulling(1)}), cfg), "nodes"); r.Passed || !r.Unproven() {
		t.Errorf("no pull recorded: %+v", r)
	}
	if r := one(t, CheckImagePulls(window(0, 300), cfg), "nodes"); !r.Passed || r.Skipped == "" {
		t.Errorf("no registry: %+v", r)
	}
}
