package checks

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// CheckLBIdentity: each Service's load balancer is created once and kept
// (not deleted and recreated while the Service lives), and none is left in
// the cloud without a Service at the end (leak).
func CheckLBIdentity(evs []timeline.Event, cfg Config) []Result {
	if cloudOutOfReach(evs) {
		return []Result{notJudged(LBIdentity, "load balancers", noCloudWhy)}
	}
	byService := map[string][]timeline.Event{}
	var snap *timeline.Event
	for i, e := range evs {
		switch e.Kind {
		case timeline.LBCreated, timeline.LBDeleted:
			byService[e.Attrs["service"]] = append(byService[e.Attrs["service"]], e)
		case timeline.Snapshot:
			snap = &evs[i]
		}
	}
	names := make([]string, 0, len(byService))
	for s := range byService {
		names = append(names, s)
	}
	sort.Strings(names)
	var out []Result
	for _, svc := range names {
		var vs []Violation
		created := 0
		for i, e := range byService[svc] {
			if e.Kind == timeline.LBCreated {
				created++
				if created > 1 && i > 0 && byService[svc][i-1].Kind == timeline.LBDeleted && !serviceDeleted(evs, svc, byService[svc][i-1], e) {
					prev := byService[svc][i-1]
					vs = append(vs, Violation{From: prev.Time, To: e.Time, Sources: []string{"cloud"},
						Message:  fmt.Sprintf("load balancer deleted and recreated while the Service lived (%s → %s)", prev.Attrs["ip"], e.Attrs["ip"]),
						Evidence: []string{clock(prev.Time) + " deleted " + prev.Attrs["name"], clock(e.Time) + " created " + e.Attrs["name"]}})
				}
			}
		}
		out = append(out, result(LBIdentity, svc, vs, fmt.Sprintf("created %d time(s)", created), nil))
	}
	if snap == nil {
		return append(out, unproven(evs, LBIdentity, "no leaked load balancers", "no end snapshot of Services and load balancers"))
	}
	return append(out, leaks(evs, *snap))
}

// serviceDeleted: the Service itself was deleted (and made again) around
// the load balancer's deletion, which is then no fault of a controller.
func serviceDeleted(evs []timeline.Event, svc string, lbDeleted, lbCreated timeline.Event) bool {
	for _, e := range evs {
		if e.Kind == timeline.ServiceDeleted && e.Attrs["service"] == svc &&
			!e.Time.Before(lbDeleted.Time.Add(-serviceDeleteSlack)) && e.Time.Before(lbCreated.Time) {
			return true
		}
	}
	return false
}

// serviceDeleteSlack: how long before its load balancer goes a deleted
// Service may have been deleted (the service controller's reaction time).
const serviceDeleteSlack = 30 * time.Second

func leaks(evs []timeline.Event, snap timeline.Event) Result {
	for _, k := range []string{"services", "loadBalancers"} {
		if _, ok := snap.Attrs[k]; !ok {
			return unproven(evs, LBIdentity, "no leaked load balancers", "the end snapshot could not list its "+k)
		}
	}
	want := map[string]bool{}
	for _, s := range split(snap.Attrs["services"]) {
		want[s] = true
	}
	var vs []Violation
	for _, lb := range split(snap.Attrs["loadBalancers"]) {
		svc, _, _ := strings.Cut(lb, "=")
		if !want[svc] {
			vs = append(vs, Violation{From: snap.Time, To: snap.Time, Sources: []string{"cloud", "api"},
				Message: "load balancer " + lb + " has no Service: leaked"})
		}
	}
	return result(LBIdentity, "no leaked load balancers", vs, fmt.Sprintf("%d load balancer(s) at the end", len(split(snap.Attrs["loadBalancers"]))), nil)
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
