package checks

import (
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

func probe(sec float64, kind, target, node string, ok bool) timeline.Event {
	o := "true"
	if !ok {
		o = "false"
	}
	return timeline.Event{Time: at(sec), Source: "probe", Kind: timeline.Probe,
		Attrs: map[string]string{"kind": kind, "target": target, "node": node, "ok": o, "error": "connection refused"}}
}

func probes(from, to float64, kind, target, node string, ok bool) []timeline.Event {
	var out []timeline.Event
	for s := from; s <= to+1e-9; s += 0.25 {
		out = append(out, probe(s, kind, target, node, ok))
	}
	return out
}

func TestAvailability(t *testing.T) {
	removal := []timeline.Event{{Time: at(50), Source: "runner", Kind: timeline.NodeRemove, Node: "cp1"}}
	for _, tc := range []struct {
		name  string
		evs   []timeline.Event
		fires bool
	}{
		{"always up", probes(0, 100, "api", "endpoint", "", true), false},
		{"one short blip", join(probes(0, 50, "api", "endpoint", "", true), probes(50.25, 50.5, "api", "endpoint", "", false), probes(50.75, 100, "api", "endpoint", "", true)), false},
		{"six seconds down", join(probes(0, 50, "api", "endpoint", "", true), probes(50.25, 56, "api", "endpoint", "", false), probes(56.25, 100, "api", "endpoint", "", true)), true},
		{"down at the end", join(probes(0, 90, "api", "endpoint", "", true), probes(90.25, 100, "api", "endpoint", "", false)), true},
		{"a removed node's server does not count", join(probes(0, 49.75, "api", "endpoint", "cp1", true), probes(50, 100, "api", "endpoint", "cp1", false), removal), false},
		{"a restart the procedure announced does not count", join(probes(0, 100, "api", "endpoint", "cp1", true), probes(40, 60, "api", "endpoint", "cp1", false)[:0],
			[]timeline.Event{{Time: at(39), Source: "runner", Kind: timeline.NodeDisruptStart, Node: "cp1"}}, probes(40, 60, "api", "endpoint", "cp1", false),
			[]timeline.Event{{Time: at(61), Source: "runner", Kind: timeline.NodeDisruptEnd, Node: "cp1"}}), false},
		{"a joining server is not down before it first answers", join(probes(0, 40, "api", "endpoint", "cp4", false), probes(40.25, 100, "api", "endpoint", "cp4", true)), false},
		{"a server that never answers is down", probes(0, 100, "api", "endpoint", "cp4", false), true},
		{"a server gone for good before its Node was deleted was removed, announced or not", join(probes(0, 39.75, "api", "endpoint", "cp1", true),
			probes(40, 60, "api", "endpoint", "cp1", false), []timeline.Event{{Time: at(55), Source: "nodes", Kind: timeline.NodeDeleted, Node: "cp1"}}), false},
		{"a server down and back is an outage though its Node goes later", join(probes(0, 39.75, "api", "endpoint", "cp1", true),
			probes(40, 50, "api", "endpoint", "cp1", false), probes(50.25, 60, "api", "endpoint", "cp1", true),
			[]timeline.Event{{Time: at(70), Source: "nodes", Kind: timeline.NodeDeleted, Node: "cp1"}}), true},
		{"one short outage on a short-lived server is judged by its length, not the share", join(probes(0, 49.5, "api", "endpoint", "cp4", true),
			probes(50, 51.5, "api", "endpoint", "cp4", false), probes(52, 100, "api", "endpoint", "cp4", true)), false},
		{"two short outages on a short-lived server are judged by the share", join(probes(0, 29.5, "api", "endpoint", "cp4", true),
			probes(30, 31.5, "api", "endpoint", "cp4", false), probes(32, 59.5, "api", "endpoint", "cp4", true),
			probes(60, 61.5, "api", "endpoint", "cp4", false), probes(62, 100, "api", "endpoint", "cp4", true)), true},
		{"an unannounced restart counts", join(probes(0, 39.75, "api", "endpoint", "cp1", true), probes(40, 60, "api", "endpoint", "cp1", false), probes(60.25, 100, "api", "endpoint", "cp1", true)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, CheckAPIAvailability(tc.evs, cfg), "endpoint")
			if r.Passed == tc.fires {
				t.Fatalf("fired=%t, want %t: %+v", !r.Passed, tc.fires, r)
			}
		})
	}
	if rs := CheckLBAvailability(probes(0, 10, "lb", "172.18.100.1", "", false), cfg); len(rs) != 1 || rs[0].Passed {
		t.Fatalf("LB down the whole time: %+v", rs)
	}
}

func TestLBAvailability(t *testing.T) {
	const web = "default/web"
	lb := func(from, to float64, ok bool) []timeline.Event { return probes(from, to, "lb", web, "", ok) }
	deleted := func(sec float64) []timeline.Event {
		return []timeline.Event{{Time: at(sec), Source: "api", Kind: timeline.ServiceDeleted, Attrs: map[string]string{"service": web}}}
	}
	deletedBy := func(source string, sec float64) timeline.Event {
		return timeline.Event{Time: at(sec), Source: source, Kind: timeline.ServiceDeleted, Attrs: map[string]string{"service": web}}
	}
	// One failed request in 82 is under 99 %: whether it counts decides.
	failed := func(sec float64, ms string) []timeline.Event {
		e := probe(sec, "lb", web, "", false)
		e.Attrs["ms"] = ms
		return []timeline.Event{e}
	}
	terminated := []timeline.Event{{Time: at(50), Source: "load", Kind: timeline.NodeRemove, Node: "w3"}}
	// Flaps in the first second: answers, fails while backends settle.
	warmup := join(lb(0, 0, true), lb(0.25, 0.5, false), lb(0.75, 0.75, true), lb(1, 1.5, false))
	for _, tc := range []struct {
		name  string
		evs   []timeline.Event
		fires bool
	}{
		{"a new load balancer settling is not down", join(warmup, lb(1.75, 60, true)), false},
		{"down after it was in service", join(lb(0, 20, true), lb(20.25, 27, false), lb(27.25, 60, true)), true},
		{"going with its Service is not down", join(lb(0, 40, true), deleted(40), lb(40.25, 60, false)), false},
		{"failing before its Service's deletion counts", join(lb(0, 30, true), lb(30.25, 39, false), deleted(40), lb(40.25, 60, false)), true},
		{"a request that failed before its Service's deletion counts", join(lb(0, 20, true), failed(20.25, "10"), deleted(21)), true},
		{"a request in flight when its Service's deletion was asked is not judged", join(lb(0, 20, true), failed(20.25, "2000"), deleted(21.5)), false},
		{"the deleter's own record counts before an observer's late watch", join(lb(0, 20, true), deleted(22), []timeline.Event{deletedBy("load", 20.5)}, failed(20.75, "10")), false},
		{"a terminated backend being drained is not down", join(lb(0, 50, true), terminated, lb(50.25, 53, false), lb(53.25, 100, true)), false},
		{"failing past the drain counts", join(lb(0, 50, true), terminated, lb(50.25, 67, false), lb(67.25, 100, true)), true},
		{"never in service is down", lb(0, 60, false), true},
		{"never answering past the outage allowed is down", lb(0, 6, false), true},
		{"created as observation ends, not answering yet, is not judged", lb(0, 0.5, false), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, CheckLBAvailability(tc.evs, cfg), web)
			if r.Passed == tc.fires {
				t.Fatalf("fired=%t, want %t: %+v", !r.Passed, tc.fires, r)
			}
		})
	}
}

func nodeEv(sec float64, kind, name, providerID, taints string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "nodes", Kind: kind, Node: name,
		Attrs: map[string]string{"providerID": providerID, "taints": taints, "instance": "exists"}}
}

func TestNodeChecks(t *testing.T) {
	const tainted = "node.cloudprovider.kubernetes.io/uninitialized"
	good := []timeline.Event{nodeEv(0, timeline.NodeAdded, "w1", "", tainted), nodeEv(3, timeline.NodeChanged, "w1", "kind://docker/c/w1", "")}
	neverInit := []timeline.Event{nodeEv(0, timeline.NodeAdded, "w1", "", tainted)}
	changed := []timeline.Event{nodeEv(0, timeline.NodeAdded, "w1", "kind://docker/c/w1", ""), nodeEv(10, timeline.NodeDeleted, "w1", "kind://docker/c/w1", ""),
		nodeEv(12, timeline.NodeAdded, "w1", "other://w1", "")}
	if r := one(t, CheckProviderIDs(good, cfg), "w1"); !r.Passed {
		t.Errorf("initialised node: %+v", r)
	}
	if r := one(t, CheckProviderIDs(neverInit, cfg), "w1"); r.Passed {
		t.Error("a node without ProviderID passed")
	}
	if r := one(t, CheckProviderIDs(changed, cfg), "w1"); r.Passed {
		t.Error("a ProviderID changed by re-registration passed")
	}
	if r := one(t, CheckUninitializedTaint(good, cfg), "w1"); !r.Passed {
		t.Errorf("initialised node: %+v", r)
	}
	if r := one(t, CheckUninitializedTaint(neverInit, cfg), "w1"); r.Passed {
		t.Error("a node left tainted passed")
	}
	// The cloud's refusals of the managers' look-ups of that instance are
	// the evidence of why (a scoped or denied credential), and only those.
	lookup := func(sec float64, resource, status, fault string) timeline.Event {
		return timeline.Event{Time: at(sec), Source: "cloud-audit", Kind: timeline.CloudCall, Manager: ccm, Controller: "cloud-node-controller",
			Attrs: map[string]string{"operation": "GetInstance", "resource": resource, "status": status, "fault": fault}}
	}
	refused := append(slices.Clone(neverInit), lookup(1, "w1", "404", "scope"), lookup(2, "w1", "404", "scope"), lookup(2, "w10", "404", "scope"), lookup(3, "w1", "200", ""))
	for name, r := range map[string]Result{"provider-id": one(t, CheckProviderIDs(refused, cfg), "w1"), "uninitialized-taint": one(t, CheckUninitializedTaint(refused, cfg), "w1")} {
		if r.Passed || len(r.Violations) != 1 || !slices.Contains(r.Violations[0].Evidence, "cloud audit: cloud-controller-manager refused GetInstance (404, knob scope) 2 time(s)") {
			t.Errorf("%s: want the two refused look-ups of w1 as evidence: %+v", name, r)
		}
	}
	deleted := []timeline.Event{nodeEv(0, timeline.NodeAdded, "cp1", "kind://docker/c/cp1", ""), nodeEv(20, timeline.NodeDeleted, "cp1", "kind://docker/c/cp1", "")}
	if r := one(t, CheckNodeDeletion(deleted, cfg), "cp1"); r.Passed {
		t.Error("a Node deleted while its instance exists passed")
	}
	byID := lookup(19, "kind://docker/c/cp1", "404", "scope")
	byID.Attrs["operation"] = "GetInstanceByProviderID"
	if r := one(t, CheckNodeDeletion(append(slices.Clone(deleted), byID), cfg), "cp1"); r.Passed || !slices.Contains(r.Violations[0].Evidence, "cloud audit: cloud-controller-manager refused GetInstanceByProviderID (404, knob scope) 1 time(s)") {
		t.Errorf("a deletion after the cloud refused the look-up must cite it: %+v", r)
	}
	nodeDelete := func(sec float64, name string) timeline.Event {
		return timeline.Event{Time: at(sec), Source: "api-audit", Kind: timeline.APIWrite, Manager: ccm, Controller: "cloud-node-lifecycle-controller",
			Attrs: map[string]string{"verb": "delete", "resource": "nodes", "name": name, "user": "system:cloud-controller-manager"}}
	}
	for _, c := range []struct {
		name string
		evs  []timeline.Event
		want string
	}{
		{"no audit", deleted, "no API audit to tell"},
		{"the manager's delete", append(deleted, nodeDelete(19.8, "cp1")), "by cloud-node-lifecycle-controller of cloud-controller-manager"},
		{"another node's delete", append(deleted, nodeDelete(19.8, "cp2")), "by no manager"},
		{"an old delete", append(deleted, nodeDelete(2, "cp1")), "by no manager"},
	} {
		r := one(t, CheckNodeDeletion(c.evs, cfg), "cp1")
		if r.Passed || len(r.Violations) != 1 || !strings.Contains(r.Violations[0].Message, c.want) {
			t.Errorf("%s: want one violation naming %q, got %+v", c.name, c.want, r.Violations)
		}
	}
	announced := append(deleted, timeline.Event{Time: at(19), Source: "runner", Kind: timeline.NodeRemove, Node: "cp1"})
	if r := one(t, CheckNodeDeletion(announced, cfg), "cp1"); !r.Passed {
		t.Errorf("the procedure's own removal: %+v", r)
	}
}

func lbEv(sec float64, kind, svc, ip string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "cloud", Kind: kind, Attrs: map[string]string{"service": svc, "name": "lb-" + svc, "ip": ip}}
}

func TestLBIdentity(t *testing.T) {
	kept := []timeline.Event{lbEv(0, timeline.LBCreated, "default/web", "172.18.100.1")}
	recreated := append(kept, lbEv(30, timeline.LBDeleted, "default/web", "172.18.100.1"), lbEv(31, timeline.LBCreated, "default/web", "172.18.100.2"))
	churn := append(append([]timeline.Event(nil), recreated...), timeline.Event{Time: at(29), Source: "api", Kind: timeline.ServiceDeleted, Attrs: map[string]string{"service": "default/web"}})
	if r := one(t, CheckLBIdentity(kept, cfg), "default/web"); !r.Passed {
		t.Errorf("kept LB: %+v", r)
	}
	if r := one(t, CheckLBIdentity(recreated, cfg), "default/web"); r.Passed {
		t.Error("a load balancer recreated under a living Service passed")
	}
	if r := one(t, CheckLBIdentity(churn, cfg), "default/web"); !r.Passed {
		t.Errorf("a Service deleted and made again: %+v", r)
	}
	snap := timeline.Event{Time: at(60), Source: "observer", Kind: timeline.Snapshot,
		Attrs: map[string]string{"services": "default/web", "loadBalancers": "default/web=lb-a,default/gone=lb-b"}}
	if r := one(t, CheckLBIdentity(append(kept, snap), cfg), "no leaked load balancers"); r.Passed {
		t.Error("a leaked load balancer passed")
	}
}

// A Node never initialised cites the errors the managers logged naming it
// (the node controller's "failed to get provider ID for node …"), not
// those naming another Node.
func TestProviderIDCitesLoggedErrors(t *testing.T) {
	const syncErr = "error syncing 'w1.corp.example': failed to get provider ID for node w1.corp.example at cloudprovider: failed to get instance ID from cloud provider: instance not found, requeuing"
	evs := []timeline.Event{nodeEv(0, timeline.NodeAdded, "w1.corp.example", "", "node.cloudprovider.kubernetes.io/uninitialized"),
		logged(5, ccm, "node_controller.go:240", syncErr, "3"),
		logged(6, ccm, "node_controller.go:240", "error syncing 'w10.corp.example': other", ""),
		{Time: at(60), Source: "observer", Kind: timeline.Snapshot}}
	r := one(t, CheckProviderIDs(evs, cfg), "w1.corp.example")
	if r.Passed {
		t.Fatal("a node without ProviderID passed")
	}
	all := strings.Join(r.Violations[0].Evidence, "\n")
	if !strings.Contains(all, syncErr) || strings.Contains(all, "w10.corp.example") {
		t.Errorf("cites:\n%s", all)
	}
}
