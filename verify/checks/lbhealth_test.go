package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

// A load balancer that records a cloud's health check (a classic ELB's:
// 6 failures 10 s apart, 5 s each) sends to a terminated backend until
// that check fails it, 65 s: every other request failing then is ELB
// behaving as ELB, not counted in the share. Past it, or with every
// request failing (the other backend must answer), it is an outage; and
// without a recorded check the simulated load balancer's 10 s apply.
func TestLBAvailabilityWithACloudsHealthCheck(t *testing.T) {
	const web = "default/web"
	created := timeline.Event{Time: at(0), Source: "cloud", Kind: timeline.LBCreated, Attrs: map[string]string{"service": web,
		timeline.HealthCheck: "TCP:31000", timeline.HealthInterval: "10s", timeline.HealthTimeout: "5s",
		timeline.HealthyThreshold: "2", timeline.UnhealthyThreshold: "6", "backends": "10.0.0.3,10.0.0.4"}}
	nodes := []timeline.Event{
		{Time: at(0), Source: "kube", Kind: timeline.NodeAdded, Node: "w3", Attrs: map[string]string{"addresses": "Hostname=w3,InternalIP=10.0.0.3"}},
		{Time: at(0), Source: "kube", Kind: timeline.NodeAdded, Node: "cp1", Attrs: map[string]string{"addresses": "Hostname=cp1,InternalIP=10.0.0.9"}},
	}
	terminated := timeline.Event{Time: at(50), Source: "load", Kind: timeline.NodeRemove, Node: "w3"}
	notABackend := timeline.Event{Time: at(50), Source: "runner", Kind: timeline.NodeRemove, Node: "cp1"}
	// alternating: one request in two goes to the dead backend.
	alternating := func(from, to float64) []timeline.Event {
		var out []timeline.Event
		for i, s := 0, from; s <= to+1e-9; i, s = i+1, s+0.25 {
			out = append(out, probe(s, "lb", web, "", i%2 == 0))
		}
		return out
	}
	lb := func(from, to float64, ok bool) []timeline.Event { return probes(from, to, "lb", web, "", ok) }
	for _, tc := range []struct {
		name  string
		evs   []timeline.Event
		fires bool
	}{
		{"a dead backend in service until its check fails it", join(nodes, []timeline.Event{created, terminated}, lb(0, 50, true), alternating(50.25, 110), lb(110.25, 200, true)), false},
		{"a node removed that was no backend excuses nothing", join(nodes, []timeline.Event{created, notABackend}, lb(0, 50, true), alternating(50.25, 110), lb(110.25, 200, true)), true},
		{"still sent to past its check", join(nodes, []timeline.Event{created, terminated}, lb(0, 50, true), alternating(50.25, 160), lb(160.25, 200, true)), true},
		{"every request failing is an outage all the same", join(nodes, []timeline.Event{created, terminated}, lb(0, 50, true), lb(50.25, 60, false), lb(60.25, 200, true)), true},
		{"new, not answering before its check could put a backend in service", join([]timeline.Event{created}, lb(0, 20, false)), false},
		{"new, not answering after its check could have", join([]timeline.Event{created}, lb(0, 40, false)), true},
		{"without a recorded check, the simulated load balancer's drain", join([]timeline.Event{terminated}, lb(0, 50, true), alternating(50.25, 110), lb(110.25, 200, true)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, CheckLBAvailability(tc.evs, cfg), web)
			if r.Passed == tc.fires {
				t.Fatalf("fired=%t, want %t: %+v", !r.Passed, tc.fires, r)
			}
		})
	}
}

// A new load balancer whose traffic the cloud's network drops fires once
// its health check could have put a backend in service, and its evidence
// names what was dropped and until when; the drop before the outage does
// not.
func TestLBAvailabilityNamesTheTrafficDropped(t *testing.T) {
	const web = "default/web"
	hc := map[string]string{"service": web, timeline.HealthCheck: "TCP:31000", timeline.HealthInterval: "10s", timeline.HealthTimeout: "5s",
		timeline.HealthyThreshold: "2", timeline.UnhealthyThreshold: "6", "backends": "10.0.0.3"}
	with := func(extra map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range hc {
			out[k] = v
		}
		for k, v := range extra {
			out[k] = v
		}
		return out
	}
	evs := join([]timeline.Event{
		{Time: at(0), Source: "cloud", Kind: timeline.LBCreated, Attrs: with(map[string]string{timeline.LBDropped: "10.0.0.3:30080,10.0.0.3:31000"})},
		{Time: at(10), Source: "cloud", Kind: timeline.LBChanged, Attrs: hc},
		{Time: at(30), Source: "cloud", Kind: timeline.LBChanged, Attrs: with(map[string]string{timeline.LBDropped: "10.0.0.3:31000"})},
	}, probes(0, 30, "lb", web, "", true), probes(30.25, 100, "lb", web, "", false))
	r := one(t, CheckLBAvailability(evs, cfg), web)
	if r.Passed || len(r.Violations) != 1 {
		t.Fatalf("want one violation: %+v", r)
	}
	ev := strings.Join(r.Violations[0].Evidence, "\n")
	if !strings.Contains(ev, "dropped its traffic to 10.0.0.3:31000") || strings.Contains(ev, "30080") {
		t.Errorf("evidence:\n%s", ev)
	}
}
