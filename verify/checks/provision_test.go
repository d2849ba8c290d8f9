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

// A Service's wait cites the errors the managers logged naming it while it
// waited: not another Service's, nor those logged before it was first seen.
func TestLBProvisionCitesLoggedErrors(t *testing.T) {
	const churn = "load/churn-5"
	syncErr := "error processing service " + churn + " (retrying with exponential backoff): failed to ensure load balancer: UnauthorizedOperation"
	evs := []timeline.Event{
		logged(5, ccm, "controller.go:298", "error processing service "+churn+" (retrying with exponential backoff): before", ""),
		{Time: at(10), Source: "api", Kind: timeline.ServiceIngress, Attrs: map[string]string{"service": churn, "ingress": ""}},
		logged(40, ccm, "controller.go:298", syncErr, ""),
		logged(50, ccm, "controller.go:298", "error processing service load/churn-50 (retrying with exponential backoff): other", ""),
		logged(100, ccm, "controller.go:298", syncErr, "1"),
		{Time: at(200), Source: "observer", Kind: timeline.Snapshot},
	}
	rs := CheckLBProvision(evs, cfg)
	if len(rs) != 1 || rs[0].Passed {
		t.Fatalf("results: %+v", rs)
	}
	ev := rs[0].Violations[0].Evidence
	want := "00:01:40.000 cloud-controller-manager logged (controller.go:298, 2 more since 00:00:40.000): " + syncErr
	if ev[len(ev)-1] != want {
		t.Errorf("cites:\n%s\nwant last %q", strings.Join(ev, "\n"), want)
	}
	if all := strings.Join(ev, "\n"); strings.Contains(all, "churn-50") || strings.Contains(all, "before") {
		t.Errorf("cites another Service's error or one from before the wait:\n%s", all)
	}
}

// The service controller's last write, when an Event, quotes the Event's
// reason and message: what the provider answered.
func TestLastAttemptQuotesTheEvent(t *testing.T) {
	p := pending{service: "load/churn-5", since: timeline.Event{Time: at(0)}}
	event := timeline.Event{Time: at(30), Source: "events", Kind: timeline.ManagedWrite, Manager: ccm, Controller: svc,
		Attrs: map[string]string{"resource": "events", "name": "load/churn-5", "operation": "Update", "reason": "SyncLoadBalancerFailed",
			"message": "Error syncing load balancer: failed to ensure load balancer: AccessDenied"}}
	want := `00:00:30.000 last write about it by cloud-controller-manager's service-lb-controller (Update events, events): SyncLoadBalancerFailed "Error syncing load balancer: failed to ensure load balancer: AccessDenied"`
	if got := lastAttempt([]timeline.Event{event}, p); got != want {
		t.Errorf("lastAttempt =\n%s\nwant\n%s", got, want)
	}
	// A status write has no reason to quote.
	status := timeline.Event{Time: at(40), Source: "managed-fields", Kind: timeline.ManagedWrite, Manager: ccm, Controller: svc,
		Attrs: map[string]string{"resource": "services/status", "name": "load/churn-5", "operation": "Update"}}
	if got := lastAttempt([]timeline.Event{event, status}, p); !strings.HasSuffix(got, "(Update services/status, managed-fields)") {
		t.Errorf("lastAttempt = %s", got)
	}
}
