package checks

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// controlPlane is what the pollers see of one control plane from..to:
// both managers in health and metrics (the one not in charge answering
// up=false, as an old CCM does), its API server probed. mgr runs svc from
// runs[0] to runs[1].
func controlPlane(node string, from, to float64, mgr string, runs [2]float64) []timeline.Event {
	var out []timeline.Event
	for _, m := range []string{kcm, ccm} {
		if m != mgr {
			out = join(out, downFor(from, to, m, node), metricsFor(from, to, m, node))
			continue
		}
		out = join(out, runsFor(from, runs[0]-0.5, m, node), runsFor(runs[0], runs[1], m, node, svc), runsFor(runs[1]+0.5, to, m, node),
			metricsFor(from, runs[0]-0.5, m, node), metricsFor(runs[0], runs[1], m, node, svc), metricsFor(runs[1]+0.5, to, m, node))
	}
	return join(out, probes(from, to, "api", node, node, true))
}

func node(sec float64, kind, name, taints string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "nodes", Kind: kind, Node: name,
		Attrs: map[string]string{"providerID": "kind://docker/t/" + name, "taints": taints, "instance": "gone", "podCIDRs": podCIDR(name),
			"addresses": "Hostname=" + name + ",InternalIP=" + strings.TrimPrefix(podCIDR(name), "10.244."), "zone": "sim-zone-a", "region": "sim-region-1", "instanceType": "sim.node"}}
}

// podCIDR is a range of its own for each node name.
func podCIDR(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	return fmt.Sprintf("10.%d.%d.0/24", 100+h.Sum32()%100, h.Sum32()>>8%256)
}

// procedure is a run from 1 s to 58 s, observed from 0 to 60, with its
// initial nodes, a lease holder and an end snapshot: the events every
// rehearsal has besides the pollers'.
func procedure() []timeline.Event {
	return join(window(0, 60), []timeline.Event{
		{Time: at(1), Source: "runner", Kind: timeline.RunStart, Message: "migrate", Attrs: map[string]string{"controllers": svc}},
		node(0.5, timeline.NodeAdded, "cp1", controlPlaneTaint), node(0.5, timeline.NodeAdded, "cp2", controlPlaneTaint), node(0.5, timeline.NodeAdded, "w1", ""),
		{Time: at(0.5), Source: "lease", Kind: timeline.Lease, Attrs: map[string]string{"lease": "cloud-provider-extraction-migration", "holder": "cp1_x"}},
		{Time: at(58), Source: "runner", Kind: timeline.RunEnd, Outcome: timeline.OK},
		{Time: at(59.5), Source: "observer", Kind: timeline.Snapshot, Attrs: map[string]string{"services": "", "loadBalancers": "",
			"routes": podCIDR("cp1") + ">cp1," + podCIDR("cp2") + ">cp2," + podCIDR("w1") + ">w1"}},
	}, probes(0, 60, "api", "endpoint", "", true))
}

// complete: cp1's KCM runs svc until 30 s, cp2's CCM from 30.5 s; the
// other two managers are down all along, answering up=false: not blind.
func complete() []timeline.Event {
	return join(procedure(), controlPlane("cp1", 0, 60, kcm, [2]float64{0, 30}), controlPlane("cp2", 0, 60, ccm, [2]float64{30.5, 60}))
}

// without drops the events of a kind of one manager instance (or API
// server, for probes) from..to.
func without(evs []timeline.Event, kind, mgr, inst string, from, to float64) []timeline.Event {
	var out []timeline.Event
	for _, e := range evs {
		mine := e.Kind == kind && (e.Manager == mgr && e.Instance == inst || e.Kind == timeline.Probe && e.Attrs["target"] == inst)
		if mine && !e.Time.Before(at(from)) && !e.Time.After(at(to)) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// cp1Removed: the procedure removes cp1 at 30 s (its Node goes at 33 s,
// the pollers stop seeing it at 31 s) after its KCM hands svc over.
func cp1Removed() []timeline.Event {
	return join(procedure(), controlPlane("cp1", 0, 31, kcm, [2]float64{0, 29.5}), controlPlane("cp2", 0, 60, ccm, [2]float64{30, 60}),
		[]timeline.Event{{Time: at(30), Source: "runner", Kind: timeline.NodeRemove, Node: "cp1"}, node(33, timeline.NodeDeleted, "cp1", controlPlaneTaint)})
}

// cp3Joins: a control plane whose container (and so its managers) the
// pollers see from 15 s, before its Node registers at 20 s.
func cp3Joins() []timeline.Event {
	evs := join(complete(), controlPlane("cp3", 15, 60, "", [2]float64{}), []timeline.Event{node(20, timeline.NodeAdded, "cp3", "")})
	for _, e := range evs {
		if e.Kind == timeline.Snapshot {
			e.Attrs["routes"] += "," + podCIDR("cp3") + ">cp3" // the route controller routed it
		}
	}
	return evs
}

// resumed: a run killed at 20 s with its process (no run.end, no
// observer.stop), resumed by a new process 100 s later; nothing is
// observed in between.
func resumed() []timeline.Event {
	var out []timeline.Event
	for _, e := range complete() {
		if !e.Time.After(at(20)) {
			out = append(out, e)
		}
	}
	for _, e := range complete() {
		e.Time = e.Time.Add(100 * time.Second)
		out = append(out, e)
	}
	return out
}

func TestEvidence(t *testing.T) {
	empty := join(window(0, 30), []timeline.Event{
		{Time: at(0), Source: "runner", Kind: timeline.RunStart, Message: "migrate", Attrs: map[string]string{"controllers": svc}},
		{Time: at(30), Source: "runner", Kind: timeline.RunEnd, Outcome: timeline.OK}})
	for _, tc := range []struct {
		name     string
		evs      []timeline.Event
		failing  string   // check/subject of every failed result, sorted
		mentions []string // what the failures say, together
	}{
		{"nothing observed while the procedure ran", empty,
			"api-availability/endpoint coverage-gap/service-lb-controller evidence/api probes evidence/health evidence/leases evidence/metrics evidence/nodes " +
				"lb-availability/load balancers lb-identity/no leaked load balancers lb-ingress/load balancers lb-single/load balancers " +
				"mutual-exclusion/service-lb-controller node-deletion/nodes node-identity/nodes node-metadata/nodes pod-cidr/nodes provider-id/nodes route-table/routes uninitialized-taint/nodes",
			[]string{"blind: the health observer recorded no health sample", "blind: the nodes observer recorded nothing", "unproven: no API probe recorded",
				"0 health and 0 metrics intervals", "unproven: the node watch recorded no Node", "no end snapshot"}},
		{"a 30 s hole in one manager's health samples", without(complete(), timeline.Health, ccm, "cp2", 10, 40), "evidence/health",
			[]string{"no health sample of cloud-controller-manager@cp2 from 00:00:09.500 to 00:00:40.500 (31s; tolerance 5s)"}},
		{"an API server unprobed from the start", without(complete(), timeline.Probe, "", "cp1", 0, 20), "evidence/api probes",
			[]string{"no API probe of cp1 from 00:00:01.000 to 00:00:20.250"}},
		{"complete", complete(), "", nil},
		{"a control plane removed mid-procedure is no hole", cp1Removed(), "", nil},
		{"a control plane joining mid-procedure is no hole", cp3Joins(), "", nil},
		{"a killed run resumed 100 s later: the time between is not judged", resumed(), "", nil},
		// A joining machine sampled under its container's name before its
		// kubelet named its Node otherwise: nothing answered, no Node had
		// the name, nothing is owed under it.
		{"a machine sampled before its kubelet named it", join(complete(), downFor(10, 40, kcm, "c-control-plane4"), downFor(10, 40, ccm, "c-control-plane4")), "", nil},
		{"a name a manager answered under, never probed", join(complete(), runsFor(10, 40, kcm, "cp9"), downFor(10, 40, ccm, "cp9")), "evidence/api probes evidence/metrics",
			[]string{"no API probe of cp9 at all while it was expected"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var failing, said []string
			for _, r := range All(tc.evs, cfg) {
				if !r.Passed {
					failing = append(failing, r.Check+"/"+r.Subject)
					for _, v := range r.Violations {
						said = append(said, v.Message)
					}
				}
			}
			sort.Strings(failing)
			if got := strings.Join(failing, " "); got != tc.failing {
				t.Fatalf("failed:\n  %s\nwant:\n  %s\nsaying:\n  %s", got, tc.failing, strings.Join(said, "\n  "))
			}
			for _, m := range tc.mentions {
				if !strings.Contains(strings.Join(said, "\n"), m) {
					t.Errorf("no failure says %q:\n  %s", m, strings.Join(said, "\n  "))
				}
			}
		})
	}
}

// Attempts are not answers: samples that got an error instead of an answer
// are counted apart, and the first one's error is named.
func TestEvidenceTellsAttemptsFromAnswers(t *testing.T) {
	evs := complete()
	refused := 0
	for i, e := range evs {
		if e.Kind == timeline.Health && e.Manager == ccm && e.Instance == "cp1" && e.Time.After(at(1)) && e.Time.Before(at(58)) {
			evs[i].Attrs = map[string]string{"up": "false", "error": "dial tcp 10.0.0.1:10258: connect: connection refused", "down": "true"}
			refused++
		}
	}
	for _, r := range All(evs, cfg) {
		if r.Check != Evidence || r.Subject != "health" {
			continue
		}
		total := int(r.Metrics["samples"])
		if int(r.Metrics["answered"]) != total-refused || refused == 0 {
			t.Errorf("answered %v of %d, %d refused", r.Metrics["answered"], total, refused)
		}
		want := fmt.Sprintf("%d of %d samples answered", total-refused, total)
		if !strings.Contains(r.Summary, want) || !strings.Contains(r.Summary, "unanswered from 00:00:01.500 on: dial tcp 10.0.0.1:10258: connect: connection refused") {
			t.Errorf("summary %q, want %q and the first refusal", r.Summary, want)
		}
		return
	}
	t.Fatal("no health evidence result")
}
