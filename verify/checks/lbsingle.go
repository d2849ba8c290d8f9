package checks

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// CheckLBSingle: a live Service has one cloud load balancer. A second one
// appears when the manager leading after the hand-off names load balancers
// differently from the one before (another --cluster-name, another naming
// scheme): it makes its own, the first stays in the cloud serving nobody
// and billed, and the Service moves to the new address.
func CheckLBSingle(evs []timeline.Event, cfg Config) []Result {
	if cloudOutOfReach(evs) {
		return []Result{notJudged(LBSingle, "load balancers", noCloudWhy)}
	}
	if countKind(evs, timeline.LBCreated) == 0 {
		snap := snapshotOf(evs)
		if snap == nil || snap.Attrs["loadBalancers"] != "" {
			return []Result{unproven(evs, LBSingle, "load balancers", "no load balancer recorded by the cloud observer, and no end snapshot without one")}
		}
		if _, listed := snap.Attrs["loadBalancers"]; !listed {
			return []Result{unproven(evs, LBSingle, "load balancers", "no load balancer recorded, and the end snapshot could not list the cloud's")}
		}
		return []Result{result(LBSingle, "load balancers", nil, "no load balancer in the cloud", nil)}
	}
	bySvc := map[string][]timeline.Event{}
	for _, e := range evs {
		switch e.Kind {
		case timeline.LBCreated, timeline.LBDeleted, timeline.ServiceDeleted:
			bySvc[e.Attrs["service"]] = append(bySvc[e.Attrs["service"]], e)
		}
	}
	_, end := span(evs)
	atEnd := snapshotDuplicates(snapshotOf(evs))
	var out []Result
	for _, svc := range sortedKeys(bySvc) {
		if countKind(bySvc[svc], timeline.LBCreated) == 0 && atEnd[svc] == nil {
			continue
		}
		vs, most := duplicates(bySvc[svc], end)
		if v := atEnd[svc]; v != nil && len(vs) == 0 {
			vs = append(vs, *v) // made too late for the cloud observer's last poll
		}
		out = append(out, result(LBSingle, svc, vs, fmt.Sprintf("at most %d load balancer(s) at once while the Service lived", most), nil))
	}
	return out
}

// snapshotDuplicates are the live Services the end snapshot lists with more
// than one load balancer: one made after the cloud observer's last poll
// shows only there.
func snapshotDuplicates(snap *timeline.Event) map[string]*Violation {
	out := map[string]*Violation{}
	if snap == nil {
		return out
	}
	live := map[string]bool{}
	for _, svc := range split(snap.Attrs["services"]) {
		live[svc] = true
	}
	lbs := map[string][]string{}
	for _, entry := range split(snap.Attrs["loadBalancers"]) {
		svc, name, _ := strings.Cut(entry, "=")
		lbs[svc] = append(lbs[svc], name)
	}
	for svc, names := range lbs {
		if live[svc] && len(names) > 1 {
			out[svc] = &Violation{From: snap.Time, To: snap.Time, Sources: []string{"cloud", "api"},
				Message:  fmt.Sprintf("%d load balancers for the live Service at the end: %s", len(names), strings.Join(names, ", ")),
				Evidence: []string{clock(snap.Time) + " end snapshot"}}
		}
	}
	return out
}

// duplicates walks one Service's load balancers. A Service's deletion
// makes the ones it had leftovers (their deletion is the leak check's
// business); a load balancer created while another of the live Service
// exists is a violation lasting until one of the two goes.
func duplicates(evs []timeline.Event, end time.Time) ([]Violation, int) {
	live := map[string]timeline.Event{}
	var vs []Violation
	open := map[string]int{} // name of the second LB → its violation
	most := 0
	for _, e := range evs {
		switch e.Kind {
		case timeline.ServiceDeleted:
			clear(live)
		case timeline.LBCreated:
			var others []string
			for name, c := range live {
				if name != e.Attrs["name"] {
					others = append(others, clock(c.Time)+" created "+name+" ("+orNone(c.Attrs["ip"])+")")
				}
			}
			sort.Strings(others)
			live[e.Attrs["name"]] = e
			most = max(most, len(live))
			if len(others) > 0 {
				open[e.Attrs["name"]] = len(vs)
				vs = append(vs, Violation{From: e.Time, To: end, Sources: []string{"cloud"},
					Message:  fmt.Sprintf("a second load balancer %s (%s) for the live Service, beside %s", e.Attrs["name"], orNone(e.Attrs["ip"]), strings.Join(others, "; ")),
					Evidence: append(others, clock(e.Time)+" created "+e.Attrs["name"]+" ("+orNone(e.Attrs["ip"])+")")})
			}
		case timeline.LBDeleted:
			delete(live, e.Attrs["name"])
			if i, ok := open[e.Attrs["name"]]; ok {
				vs[i].To = e.Time
				delete(open, e.Attrs["name"])
			}
			if len(live) <= 1 {
				for name, i := range open {
					vs[i].To = e.Time
					delete(open, name)
				}
			}
		}
	}
	return vs, most
}
