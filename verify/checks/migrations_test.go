package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

// What real migrations broke: a Service's address moved, a second load
// balancer for a live Service, pod CIDRs handed out twice.

const web = "default/web"

func ingressAt(sec float64, svc, addrs string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "api", Kind: timeline.ServiceIngress, Attrs: map[string]string{"service": svc, "ingress": addrs}}
}

func svcDeleted(sec float64, svc string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "api", Kind: timeline.ServiceDeleted, Attrs: map[string]string{"service": svc}}
}

func lbEvent(sec float64, kind, svc, name, ip string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "cloud", Kind: kind, Attrs: map[string]string{"service": svc, "name": name, "ip": ip}}
}

func endSnapshot(sec float64, services, lbs string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "observer", Kind: timeline.Snapshot, Attrs: map[string]string{"services": services, "loadBalancers": lbs}}
}

func TestIngressStable(t *testing.T) {
	for _, tc := range []struct {
		name string
		evs  []timeline.Event
		says string // "" when it passes
	}{
		{"kept", join(window(0, 100), []timeline.Event{ingressAt(1, web, ""), ingressAt(5, web, "172.18.100.1")}), ""},
		{"moved to the new leader's load balancer", join(window(0, 100), []timeline.Event{ingressAt(1, web, "172.18.100.1"), ingressAt(40, web, "172.18.100.7")}),
			"address changed from 172.18.100.1 to 172.18.100.7 while the Service lived"},
		{"taken away", join(window(0, 100), []timeline.Event{ingressAt(1, web, "172.18.100.1"), ingressAt(40, web, "")}),
			"address 172.18.100.1 taken away while the Service lived"},
		{"the Service deleted and made again gets a new address", join(window(0, 100), []timeline.Event{ingressAt(1, web, "172.18.100.1"),
			svcDeleted(30, web), ingressAt(31, web, ""), ingressAt(35, web, ""), ingressAt(40, web, "172.18.100.9")}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, CheckIngressStable(tc.evs, cfg), web)
			assertFires(t, r, tc.says)
		})
	}
	t.Run("no address recorded though a load balancer was made", func(t *testing.T) {
		r := one(t, CheckIngressStable(join(window(0, 100), []timeline.Event{lbEvent(5, timeline.LBCreated, web, "lb-a", "172.18.100.1")}), cfg), "load balancers")
		assertFires(t, r, "unproven: no Service address recorded, though 1 load balancer(s) were created")
	})
	t.Run("one Service's load balancer made, none of its addresses recorded", func(t *testing.T) {
		rs := CheckIngressStable(join(window(0, 100), []timeline.Event{ingressAt(1, "default/other", "172.18.100.2"),
			lbEvent(5, timeline.LBCreated, web, "lb-a", "172.18.100.1")}), cfg)
		assertFires(t, one(t, rs, web), "unproven: the cloud made its load balancer, but the Service watch recorded none of its addresses")
	})
	t.Run("no load balancer at all", func(t *testing.T) {
		assertFires(t, one(t, CheckIngressStable(join(window(0, 100), []timeline.Event{endSnapshot(99, "", "")}), cfg), "load balancers"), "")
	})
}

func TestLBSingle(t *testing.T) {
	for _, tc := range []struct {
		name string
		evs  []timeline.Event
		says string
	}{
		{"one", join(window(0, 100), []timeline.Event{lbEvent(5, timeline.LBCreated, web, "t-a1", "172.18.100.1")}), ""},
		{"a second for the live Service", join(window(0, 100), []timeline.Event{lbEvent(5, timeline.LBCreated, web, "t-a1", "172.18.100.1"),
			lbEvent(40, timeline.LBCreated, web, "t-ccm-a1", "172.18.100.7")}),
			"a second load balancer t-ccm-a1 (172.18.100.7) for the live Service, beside 00:00:05.000 created t-a1 (172.18.100.1)"},
		{"the old one going while the Service is made again", join(window(0, 100), []timeline.Event{lbEvent(5, timeline.LBCreated, web, "t-a1", "172.18.100.1"),
			svcDeleted(30, web), lbEvent(32, timeline.LBCreated, web, "t-a2", "172.18.100.2"), lbEvent(35, timeline.LBDeleted, web, "t-a1", "172.18.100.1")}), ""},
		{"replaced after the first went", join(window(0, 100), []timeline.Event{lbEvent(5, timeline.LBCreated, web, "t-a1", "172.18.100.1"),
			lbEvent(30, timeline.LBDeleted, web, "t-a1", "172.18.100.1"), lbEvent(32, timeline.LBCreated, web, "t-a1", "172.18.100.2")}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertFires(t, one(t, CheckLBSingle(tc.evs, cfg), web), tc.says)
		})
	}
	t.Run("a second made after the cloud observer's last poll shows in the end snapshot", func(t *testing.T) {
		rs := CheckLBSingle(join(window(0, 100), []timeline.Event{lbEvent(5, timeline.LBCreated, web, "t-a1", "1"),
			endSnapshot(99, web, web+"=t-a1,"+web+"=t-ccm-a1")}), cfg)
		assertFires(t, one(t, rs, web), "2 load balancers for the live Service at the end: t-a1, t-ccm-a1")
	})
	t.Run("the end snapshot lists load balancers the observer never saw made", func(t *testing.T) {
		r := one(t, CheckLBSingle(join(window(0, 100), []timeline.Event{endSnapshot(99, web, web+"=t-a1")}), cfg), "load balancers")
		assertFires(t, r, "unproven: no load balancer recorded")
	})
	t.Run("the violation lasts until the duplicate goes", func(t *testing.T) {
		rs := CheckLBSingle(join(window(0, 100), []timeline.Event{lbEvent(5, timeline.LBCreated, web, "t-a1", "1"),
			lbEvent(40, timeline.LBCreated, web, "t-ccm-a1", "2"), lbEvent(70, timeline.LBDeleted, web, "t-a1", "1")}), cfg)
		if v := one(t, rs, web).Violations; len(v) != 1 || !v[0].From.Equal(at(40)) || !v[0].To.Equal(at(70)) {
			t.Fatalf("violations %+v, want 40 s – 70 s", v)
		}
	})
}

func cidrNode(sec float64, kind, name, cidrs string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "nodes", Kind: kind, Node: name, Attrs: map[string]string{"providerID": "kind://docker/t/" + name, "podCIDRs": cidrs}}
}

func TestPodCIDRs(t *testing.T) {
	for _, tc := range []struct {
		name string
		evs  []timeline.Event
		says string
	}{
		{"distinct", []timeline.Event{cidrNode(0, timeline.NodeAdded, "cp1", "10.244.0.0/24"), cidrNode(0, timeline.NodeAdded, "w1", ""),
			cidrNode(2, timeline.NodeChanged, "w1", "10.244.1.0/24,fd00:10:244:1::/64")}, ""},
		{"the same range twice", []timeline.Event{cidrNode(0, timeline.NodeAdded, "cp1", "10.244.0.0/24"), cidrNode(0, timeline.NodeAdded, "w1", "10.244.1.0/24"),
			cidrNode(30, timeline.NodeChanged, "w2", "10.244.1.0/24")},
			"w2 got pod CIDRs 10.244.1.0/24, overlapping w1's 10.244.1.0/24: two node IPAM allocators"},
		{"a range inside another", []timeline.Event{cidrNode(0, timeline.NodeAdded, "cp1", "10.244.0.0/16"), cidrNode(30, timeline.NodeChanged, "w2", "10.244.7.0/24")},
			"w2 got pod CIDRs 10.244.7.0/24, overlapping cp1's 10.244.0.0/16"},
		{"changed while the Node lived", []timeline.Event{cidrNode(0, timeline.NodeAdded, "w1", "10.244.1.0/24"), cidrNode(30, timeline.NodeChanged, "w1", "10.244.5.0/24")},
			"w1: pod CIDRs changed from 10.244.1.0/24 to 10.244.5.0/24 while the Node lived"},
		{"a deleted Node's range given again", []timeline.Event{cidrNode(0, timeline.NodeAdded, "w1", "10.244.1.0/24"), cidrNode(30, timeline.NodeDeleted, "w1", "10.244.1.0/24"),
			cidrNode(40, timeline.NodeAdded, "w2", "10.244.1.0/24"), cidrNode(50, timeline.NodeAdded, "w1", "10.244.2.0/24")}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assertFires(t, one(t, CheckPodCIDRs(tc.evs, cfg), "nodes"), tc.says)
		})
	}
	t.Run("Nodes recorded without their ranges", func(t *testing.T) {
		evs := []timeline.Event{{Time: at(0), Source: "nodes", Kind: timeline.NodeAdded, Node: "w1", Attrs: map[string]string{"providerID": "x"}}}
		assertFires(t, one(t, CheckPodCIDRs(evs, cfg), "nodes"), "unproven: the node watch recorded 1 Node(s) but none of their pod CIDRs")
	})
}

// assertFires: r passed when says is "", else failed with a violation
// saying it.
func assertFires(t *testing.T, r Result, says string) {
	t.Helper()
	if says == "" {
		if !r.Passed {
			t.Fatalf("fired: %+v", r.Violations)
		}
		return
	}
	if r.Passed {
		t.Fatalf("did not fire (%s), want %q", r.Summary, says)
	}
	for _, v := range r.Violations {
		if strings.Contains(v.Message, says) {
			return
		}
	}
	t.Fatalf("violations %+v do not say %q", r.Violations, says)
}

// A moved address cites the errors the managers logged naming the Service
// while it held the address; another Service's, or one logged after the
// move, is not cited.
func TestIngressStableCitesLoggedErrors(t *testing.T) {
	ensure := "error processing service default/web (retrying with exponential backoff): failed to ensure load balancer: other cluster's name"
	evs := join(window(0, 100), []timeline.Event{
		ingressAt(1, web, "172.18.100.1"),
		logged(20, ccm, "controller.go:298", ensure, ""),
		logged(25, ccm, "controller.go:298", "error processing service default/web-2: other", ""),
		ingressAt(40, web, "172.18.100.7"),
		logged(60, ccm, "controller.go:298", "error processing service default/web: after", ""),
	})
	r := one(t, CheckIngressStable(evs, cfg), web)
	if r.Passed || len(r.Violations) != 1 {
		t.Fatalf("%+v", r)
	}
	ev := r.Violations[0].Evidence
	want := "00:00:20.000 cloud-controller-manager logged (controller.go:298): " + ensure
	if len(ev) != 3 || ev[2] != want {
		t.Errorf("cites:\n%s\nwant last %q", strings.Join(ev, "\n"), want)
	}
}
