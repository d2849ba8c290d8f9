package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

// A new Service's wait for its address: judged against max-lb-pending
// when it ends (an address, a deletion) or when the observation outlasts
// the bound, less the time a terminated instance's Node was still there
// or a fault impaired the whole cloud;
// not judged when the observation ended sooner; a Service made before the
// observation is not judged at all.
func TestLBProvision(t *testing.T) {
	const svc = "load/churn-5"
	status := func(s float64, addr string) timeline.Event {
		return timeline.Event{Time: at(s), Source: "api", Kind: timeline.ServiceIngress, Attrs: map[string]string{"service": svc, "ingress": addr}}
	}
	deleted := timeline.Event{Time: at(300), Source: "api", Kind: timeline.ServiceDeleted, Attrs: map[string]string{"service": svc}}
	end := func(s float64) timeline.Event {
		return timeline.Event{Time: at(s), Source: "observer", Kind: timeline.Snapshot}
	}
	for _, tc := range []struct {
		name   string
		evs    []timeline.Event
		passed bool
		judged bool
	}{
		{"an address at once", []timeline.Event{status(0, ""), status(2, "a.elb"), end(400)}, true, true},
		{"an address past the bound", []timeline.Event{status(0, ""), status(200, "a.elb"), end(400)}, false, true},
		{"never, observed past the bound", []timeline.Event{status(0, ""), end(144)}, false, true},
		{"never, the observation ended sooner", []timeline.Event{status(0, ""), end(60)}, true, false},
		{"deleted past the bound, never given one", []timeline.Event{status(0, ""), deleted, end(400)}, false, true},
		{"deleted soon, never given one", []timeline.Event{status(250, ""), deleted, end(400)}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := CheckLBProvision(tc.evs, cfg)
			if len(rs) != 1 {
				t.Fatalf("results: %+v", rs)
			}
			if r := rs[0]; r.Passed != tc.passed || (r.Skipped == "") != tc.judged {
				t.Fatalf("passed %t, skipped %q, want passed %t, judged %t: %s", r.Passed, r.Skipped, tc.passed, tc.judged, r.Summary)
			}
		})
	}
	// A terminated instance's Node still there: the cloud refuses to
	// register it, so that time is not counted; the rest is.
	terminated := timeline.Event{Time: at(10), Source: "load", Kind: timeline.NodeRemove, Node: "w3", Attrs: map[string]string{"instance": "terminated"}}
	gone := timeline.Event{Time: at(100), Source: "kube", Kind: timeline.NodeDeleted, Node: "w3"}
	fault := func(kind string, s float64, target string) timeline.Event {
		return timeline.Event{Time: at(s), Source: "faults", Kind: kind, Attrs: map[string]string{"fault": "f", "target": target}}
	}
	outage := func(s float64) timeline.Event { return fault(timeline.FaultStart, s, timeline.FaultTargetCloud) }
	outageOver := func(s float64) timeline.Event { return fault(timeline.FaultEnd, s, timeline.FaultTargetCloud) }
	ccmFault := func(s float64) timeline.Event { return fault(timeline.FaultStart, s, "cloud-controller-manager") }
	for _, tc := range []struct {
		name   string
		evs    []timeline.Event
		passed bool
	}{
		{"an address soon after the Node went", []timeline.Event{terminated, status(20, ""), gone, status(120, "a.elb"), end(400)}, true},
		{"none long after the Node went", []timeline.Event{terminated, status(20, ""), gone, end(240)}, false},
		{"none while the Node stays to the end", []timeline.Event{terminated, status(20, ""), end(400)}, true},
		{"an address after the cloud's outage", []timeline.Event{outage(10), status(20, ""), outageOver(130), status(200, "a.elb"), end(400)}, true},
		{"none long after the cloud's outage", []timeline.Event{outage(10), status(20, ""), outageOver(130), end(260)}, false},
		{"a fault on one caller excuses nothing", []timeline.Event{ccmFault(10), status(20, ""), end(200)}, false},
	} {
		rs := CheckLBProvision(tc.evs, cfg)
		if len(rs) != 1 || rs[0].Passed != tc.passed {
			t.Errorf("%s: %+v, want passed %t", tc.name, rs, tc.passed)
		}
	}
	// The evidence names the service controller's last write about it.
	write := timeline.Event{Time: at(5), Source: "api-audit", Kind: timeline.APIWrite, Manager: "cloud-controller-manager", Controller: "service-lb-controller",
		Attrs: map[string]string{"verb": "create", "resource": "events", "name": svc + ".18ec2ded92005142"}}
	if rs := CheckLBProvision([]timeline.Event{status(0, ""), write, end(144)}, cfg); len(rs) != 1 || rs[0].Passed ||
		!strings.Contains(strings.Join(rs[0].Violations[0].Evidence, "\n"), "last write about it by cloud-controller-manager's service-lb-controller") {
		t.Errorf("evidence: %+v", rs)
	}
	// And the cloud's refusals while it waited: a policy's among them.
	refused := timeline.Event{Time: at(30), Source: "cloud-audit", Kind: timeline.CloudCall, Manager: "cloud-controller-manager",
		Attrs: map[string]string{"operation": "ec2:DescribeAvailabilityZones", "status": "403", "fault": "iam"}}
	if rs := CheckLBProvision([]timeline.Event{status(0, ""), refused, end(144)}, cfg); len(rs) != 1 ||
		!strings.Contains(strings.Join(rs[0].Violations[0].Evidence, "\n"), "cloud-controller-manager refused ec2:DescribeAvailabilityZones (403, knob iam) 1 time(s)") {
		t.Errorf("evidence: %+v", rs)
	}
	// One first seen before the procedure began is the setup's.
	step := timeline.Event{Time: at(10), Source: "runner", Kind: timeline.StepStart}
	if rs := CheckLBProvision([]timeline.Event{status(0, ""), step, end(400)}, cfg); len(rs) != 0 {
		t.Errorf("a Service of the setup judged: %+v", rs)
	}
	if rs := CheckLBProvision([]timeline.Event{step, status(20, ""), end(400)}, cfg); len(rs) != 1 || rs[0].Passed {
		t.Errorf("a Service made during the procedure: %+v", rs)
	}
	made := []timeline.Event{status(0, "a.elb"), status(10, ""), end(400)}
	if rs := CheckLBProvision(made, cfg); len(rs) != 0 {
		t.Errorf("a Service made before the observation judged: %+v", rs)
	}
	if rs := CheckLBProvision([]timeline.Event{end(400)}, cfg); len(rs) != 0 {
		t.Errorf("no Service recorded, judged: %+v", rs)
	}
}
