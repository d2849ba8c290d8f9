package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

func nodeCIDR(sec float64, kind, node, cidrs string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "nodes", Kind: kind, Node: node, Attrs: map[string]string{"podCIDRs": cidrs}}
}

func routesSnapshot(sec float64, routes string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "observer", Kind: timeline.Snapshot, Attrs: map[string]string{"routes": routes}}
}

// The route table at the end holds exactly one route per live Node's pod
// CIDR, to that Node, and none to a Node that is gone; a Node whose range
// or deletion is younger than a reconciliation is not judged yet.
func TestRouteTable(t *testing.T) {
	nodes := []timeline.Event{
		nodeCIDR(0, timeline.NodeAdded, "w1", "10.244.1.0/24"),
		nodeCIDR(0, timeline.NodeAdded, "w2", "10.244.2.0/24"),
		nodeCIDR(10, timeline.NodeAdded, "w3", ""),
		nodeCIDR(11, timeline.NodeChanged, "w3", "10.244.3.0/24"),
		{Time: at(100), Source: "nodes", Kind: timeline.NodeDeleted, Node: "w3"},
		nodeCIDR(190, timeline.NodeAdded, "w4", "10.244.4.0/24"), // 10 s before the snapshot
	}
	good := "10.244.1.0/24>w1,10.244.2.0/24>w2"
	for _, tc := range []struct {
		name, routes, subject string
		passed                bool
		want                  string
	}{
		{"as it should be", good, "w1", true, "one route for each pod CIDR"},
		{"a live Node without its route", "10.244.1.0/24>w1", "w2", false, "pod CIDR 10.244.2.0/24 has 0 route(s)"},
		{"a route to a gone Node", good + ",10.244.3.0/24>w3", "w3", false, "point at a Node deleted at"},
		{"a Node's range sent elsewhere", good + ",10.244.2.0/24>w1", "w2", false, "and routes to w1"},
		{"a blackhole", good + ",10.244.9.0/24>blackhole", "blackhole", false, "a blackhole"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := join(window(0, 200), nodes, []timeline.Event{routesSnapshot(200, tc.routes)})
			rs := CheckRouteTable(evs, cfg)
			r := one(t, rs, tc.subject)
			text := r.Summary
			for _, v := range r.Violations {
				text += " " + v.Message
			}
			if r.Passed != tc.passed || !strings.Contains(text, tc.want) {
				t.Errorf("passed %t (%s), want %t and %q", r.Passed, text, tc.passed, tc.want)
			}
			if r := one(t, rs, "w4"); !r.Passed || r.Skipped == "" {
				t.Errorf("w4 got its range 10 s before the snapshot and was judged: %+v", r)
			}
		})
	}
	refused := join(window(0, 200), nodes, []timeline.Event{routesSnapshot(200, "10.244.1.0/24>w1"),
		{Time: at(150), Source: "cloud-audit", Kind: timeline.CloudCall, Manager: ccm, Controller: "node-route-controller",
			Attrs: map[string]string{"operation": "CreateRoute", "resource": "routes", "status": "403"}}})
	if r := one(t, CheckRouteTable(refused, cfg), "w2"); r.Passed || !strings.Contains(strings.Join(r.Violations[0].Evidence, " "), "cloud audit: cloud-controller-manager refused CreateRoute (403) 1 time(s)") {
		t.Errorf("the refusal is not in the evidence: %+v", r)
	}
	noTable := join(window(0, 200), nodes, []timeline.Event{{Time: at(200), Source: "observer", Kind: timeline.Snapshot, Attrs: map[string]string{}}})
	if r := one(t, CheckRouteTable(noTable, cfg), "routes"); r.Passed {
		t.Errorf("a snapshot without the route table passed: %+v", r)
	}
	if r := one(t, CheckRouteTable(join(window(0, 200), nodes), cfg), "routes"); r.Passed {
		t.Errorf("no snapshot passed: %+v", r)
	}
	if r := one(t, CheckRouteTable(join(window(0, 200), []timeline.Event{routesSnapshot(200, "")}), cfg), "nodes"); r.Passed {
		t.Errorf("no Node recorded passed: %+v", r)
	}
	noCIDRs := join(window(0, 200), []timeline.Event{{Time: at(0), Source: "nodes", Kind: timeline.NodeAdded, Node: "w1"}, routesSnapshot(200, "")})
	if r := one(t, CheckRouteTable(noCIDRs, cfg), "routes"); r.Passed {
		t.Errorf("a node watch without pod CIDRs passed: %+v", r)
	}
	unused := join(window(0, 200), []timeline.Event{nodeCIDR(0, timeline.NodeAdded, "w1", ""), routesSnapshot(200, "")})
	if r := one(t, CheckRouteTable(unused, cfg), "routes"); !r.Passed || r.Skipped == "" {
		t.Errorf("no pod CIDR and no route: %+v, want not judged", r)
	}
}

// A provider that batches its route writes gets a longer route-settle: a
// route 45 s late is red by default and not judged under one of 60 s.
func TestRouteSettleThreshold(t *testing.T) {
	evs := join(window(0, 200), []timeline.Event{nodeCIDR(0, timeline.NodeAdded, "w1", "10.244.1.0/24"),
		nodeCIDR(155, timeline.NodeAdded, "w2", "10.244.2.0/24")}, []timeline.Event{routesSnapshot(200, "10.244.1.0/24>w1")})
	if r := one(t, CheckRouteTable(evs, cfg), "w2"); r.Passed {
		t.Errorf("45 s without a route passed by default: %+v", r)
	}
	batched := cfg
	if err := batched.Set("route-settle", "1m"); err != nil {
		t.Fatal(err)
	}
	if r := one(t, CheckRouteTable(evs, batched), "w2"); !r.Passed || r.Skipped == "" {
		t.Errorf("45 s without a route under a 1m route-settle: %+v, want not judged", r)
	}
	if err := batched.Set("route-settle", "6m"); err == nil {
		t.Error("a route-settle of 6m, past what any check could fail, was taken")
	}
}

// A Node without its route and a dangling route cite the route
// controller's logged errors (which it posts as no Event), after the
// cloud's refusals: those of the 10 minutes before the snapshot, not
// older ones, nor other controllers'.
func TestRouteTableCitesTheRouteControllersErrors(t *testing.T) {
	nodes := []timeline.Event{
		nodeCIDR(0, timeline.NodeAdded, "w1", "10.244.1.0/24"),
		nodeCIDR(0, timeline.NodeAdded, "w2", "10.244.2.0/24"),
		nodeCIDR(0, timeline.NodeAdded, "w3", "10.244.3.0/24"),
		{Time: at(100), Source: "nodes", Kind: timeline.NodeDeleted, Node: "w3"},
	}
	evs := join(window(0, 800), nodes, []timeline.Event{
		logged(50, ccm, "route_controller.go:119", "Couldn't reconcile node routes: long ago", ""), // 750 s before
		{Time: at(600), Source: "cloud-audit", Kind: timeline.CloudCall, Manager: ccm, Controller: "node-route-controller",
			Attrs: map[string]string{"operation": "CreateRoute", "resource": "routes", "status": "403"}},
		logged(700, ccm, "route_controller.go:119", routesErr, ""),
		logged(750, ccm, "route_controller.go:119", routesErr, "2"),
		logged(760, ccm, "node_controller.go:240", "failed to get provider ID", ""),
		routesSnapshot(800, "10.244.1.0/24>w1,10.244.3.0/24>w3"),
	})
	rs := CheckRouteTable(evs, cfg)
	cited := "00:12:30.000 cloud-controller-manager logged (route_controller.go:119, 3 more since 00:11:40.000): " + routesErr
	for _, subject := range []string{"w2", "w3"} {
		r := one(t, rs, subject)
		if r.Passed || len(r.Violations) != 1 {
			t.Fatalf("%s: %+v", subject, r)
		}
		ev := r.Violations[0].Evidence
		if ev[len(ev)-1] != cited || !strings.HasPrefix(ev[len(ev)-2], "cloud audit: cloud-controller-manager refused CreateRoute (403)") {
			t.Errorf("%s cites:\n%s\nwant last %q after the cloud's refusal", subject, strings.Join(ev, "\n"), cited)
		}
		if all := strings.Join(ev, "\n"); strings.Contains(all, "long ago") || strings.Contains(all, "provider ID") {
			t.Errorf("%s cites an error too old or another controller's:\n%s", subject, all)
		}
	}
	if r := one(t, rs, "w1"); !r.Passed {
		t.Errorf("w1 has its route: %+v", r)
	}
}
