package checks

import (
	"fmt"
	"strings"

	"github.com/handover-sh/handover/timeline"
)

// CheckIngressStable: a LoadBalancer Service keeps the address it was given
// while it lives. Clients and DNS records point at it; upstream's service
// upgrade test and Rancher's migration test both assert it survives the
// hand-off. A new leader that computes another load balancer name (another
// --cluster-name, another naming scheme) makes a second load balancer and
// moves the Service to its address. A violation cites the errors the
// managers logged naming the Service meanwhile.
func CheckIngressStable(evs []timeline.Event, cfg Config) []Result {
	bySvc := map[string][]timeline.Event{}
	for _, e := range evs {
		switch e.Kind {
		case timeline.ServiceIngress, timeline.ServiceDeleted:
			bySvc[e.Attrs["service"]] = append(bySvc[e.Attrs["service"]], e)
		}
	}
	if countKind(evs, timeline.ServiceIngress) == 0 {
		return noIngress(evs)
	}
	for _, e := range evs {
		if e.Kind == timeline.LBCreated && bySvc[e.Attrs["service"]] == nil {
			bySvc[e.Attrs["service"]] = []timeline.Event{} // judged below: unproven
		}
	}
	var out []Result
	for _, svc := range sortedKeys(bySvc) {
		if len(bySvc[svc]) == 0 {
			out = append(out, unproven(evs, LBIngress, svc, "the cloud made its load balancer, but the Service watch recorded none of its addresses"))
			continue
		}
		vs, addrs := ingressChanges(bySvc[svc])
		for i, v := range vs {
			vs[i].Evidence = append(v.Evidence, loggedErrors(evs, v.From, v.To, naming(svc), maxLoggedCited)...)
		}
		if len(addrs) == 0 && len(vs) == 0 && countKind(bySvc[svc], timeline.ServiceIngress) == 0 {
			continue // deleted before the watch saw it
		}
		out = append(out, result(LBIngress, svc, vs, fmt.Sprintf("address(es) held: %s", orNone(strings.Join(addrs, " then "))), nil))
	}
	return out
}

// ingressChanges walks one Service's addresses: once it has one, any other
// (or none) before the Service's deletion is a violation. A deletion starts
// afresh: the name may come back as a new Service with a new address.
func ingressChanges(evs []timeline.Event) ([]Violation, []string) {
	var vs []Violation
	var held []string
	cur, since := "", timeline.Event{}
	for _, e := range evs {
		if e.Kind == timeline.ServiceDeleted {
			cur = ""
			continue
		}
		addr := e.Attrs["ingress"]
		switch {
		case cur == "" && addr != "":
			held = append(held, addr)
		case cur != "" && addr != cur:
			what := fmt.Sprintf("address changed from %s to %s while the Service lived", cur, orNone(addr))
			if addr == "" {
				what = fmt.Sprintf("address %s taken away while the Service lived", cur)
			} else {
				held = append(held, addr)
			}
			vs = append(vs, Violation{From: since.Time, To: e.Time, Sources: []string{"api"}, Message: what,
				Evidence: []string{clock(since.Time) + " status " + cur, clock(e.Time) + " status " + orNone(addr)}})
		default:
			continue
		}
		cur, since = addr, e
	}
	return vs, held
}

// noIngress: with no Service status recorded the check judged nothing; it
// passes only when the timeline shows there was no load balancer at all.
func noIngress(evs []timeline.Event) []Result {
	created := countKind(evs, timeline.LBCreated)
	snap := snapshotOf(evs)
	switch {
	case created > 0:
		return []Result{unproven(evs, LBIngress, "load balancers",
			fmt.Sprintf("no Service address recorded, though %d load balancer(s) were created", created))}
	case snap == nil:
		return []Result{unproven(evs, LBIngress, "load balancers", "no Service address recorded, and no end snapshot to show there was no LoadBalancer Service")}
	case snap.Attrs["services"] != "":
		return []Result{unproven(evs, LBIngress, "load balancers", "no Service address recorded, though the end snapshot lists "+snap.Attrs["services"])}
	}
	return []Result{result(LBIngress, "load balancers", nil, "no LoadBalancer Service: no address to keep", nil)}
}
