package checks

import (
	"fmt"

	"github.com/handover-sh/handover/timeline"
)

// unproven is the failing result of a check that had too little evidence
// to answer its question: finding nothing wrong in nothing proves nothing,
// and a CI gate must not read it as a pass. what names the evidence missing.
func unproven(evs []timeline.Event, check, subject, what string, evidence ...string) Result {
	from, to := span(evs)
	evidence = append(evidence, fmt.Sprintf("timeline: %d events, %s – %s", len(evs), clock(from), clock(to)))
	return result(check, subject, []Violation{{From: from, To: to, Sources: []string{Evidence}, Message: "unproven: " + what, Evidence: evidence}},
		"unproven: "+what, nil)
}

// cloudOutOfReach says whether the observation declared it could not see
// the cloud.
func cloudOutOfReach(evs []timeline.Event) bool {
	return declaredOnStart(evs, timeline.CloudOutOfReach) == "true"
}

// metricsOutOfReach is why the observation declared it could not read the
// managers' /metrics ("" when it did not): managers given without
// --manager-ca are asked only their anonymous /healthz.
func metricsOutOfReach(evs []timeline.Event) string {
	return declaredOnStart(evs, timeline.MetricsOutOfReach)
}

// declaredOnStart is what an observing process declared of attr on its
// observer.start (the first that did; "" when none did).
func declaredOnStart(evs []timeline.Event, attr string) string {
	for _, e := range evs {
		if v := e.Attrs[attr]; e.Kind == timeline.ObserverStart && v != "" {
			return v
		}
	}
	return ""
}

const noCloudWhy = "the cloud is out of reach of this observation (observed from a kubeconfig)"

// noNodes: the node checks judge each Node the node watch recorded; with
// none recorded they have judged nothing.
func noNodes(evs []timeline.Event, check string) []Result {
	return []Result{unproven(evs, check, "nodes", "the node watch recorded no Node")}
}

// noLBProbes: without load-balancer probes the data path is judged only
// when the timeline shows there was none to probe (no load balancer
// created, no LoadBalancer Service deleted, none in the end snapshot).
func noLBProbes(evs []timeline.Event) []Result {
	created, deleted := countKind(evs, timeline.LBCreated), countKind(evs, timeline.ServiceDeleted)
	snap := snapshotOf(evs)
	switch {
	case created+deleted > 0:
		return []Result{unproven(evs, LBAvailability, "load balancers",
			fmt.Sprintf("no load-balancer probe, though %d load balancer(s) were created and %d Service deletion(s) seen", created, deleted))}
	case snap == nil:
		return []Result{unproven(evs, LBAvailability, "load balancers", "no load-balancer probe, and no end snapshot to show there was none to probe")}
	case snap.Attrs["services"] != "" || snap.Attrs["loadBalancers"] != "":
		return []Result{unproven(evs, LBAvailability, "load balancers", "no load-balancer probe, though the end snapshot lists "+
			orNone(snap.Attrs["services"])+" (load balancers: "+orNone(snap.Attrs["loadBalancers"])+")")}
	}
	return []Result{result(LBAvailability, "load balancers", nil,
		"no load balancer to probe: none created, no LoadBalancer Service deleted, none in the end snapshot", nil)}
}

// snapshotOf is the last end snapshot, nil without one.
func snapshotOf(evs []timeline.Event) *timeline.Event {
	var snap *timeline.Event
	for i, e := range evs {
		if e.Kind == timeline.Snapshot {
			snap = &evs[i]
		}
	}
	return snap
}
