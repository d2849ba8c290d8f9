package checks

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// RouteTable is the check that the cloud's route table ends as the Nodes'
// pod CIDRs: the route controller moves between managers, and a manager
// that does not run it (or runs it with another view of the nodes) leaves
// new nodes without a route and gone ones with theirs.
const RouteTable = "route-table"

// routeSettle: the route controller reconciles every 10 s
// (--route-reconciliation-period); a Node that got its pod CIDR, or went,
// within this of the end snapshot is not judged on its route yet (the
// default of Config.RouteSettle: a provider that batches its route
// writes adds its batch, the route-settle threshold).
const routeSettle = 30 * time.Second

type route struct{ dest, target string }

// CheckRouteTable: at the end snapshot, every Node holding a pod CIDR has
// exactly one route for each of its ranges, pointing at it; no route
// points at a Node that is gone, or at none (a blackhole). With no pod
// CIDR and no route, routes are not in use and nothing is judged; a
// snapshot without the route table, or a node watch that recorded no Node
// or no pod CIDR, is unproven.
func CheckRouteTable(evs []timeline.Event, cfg Config) []Result {
	if cloudOutOfReach(evs) {
		return []Result{notJudged(RouteTable, "routes", noCloudWhy)}
	}
	snap := snapshotOf(evs)
	if snap == nil {
		return []Result{unproven(evs, RouteTable, "routes", "no end snapshot to read the route table from")}
	}
	raw, ok := snap.Attrs["routes"]
	if !ok {
		return []Result{unproven(evs, RouteTable, "routes", "the end snapshot has no route table (the cloud did not answer, or a timeline from before routes were recorded)")}
	}
	h, names := nodeHistory(evs)
	switch {
	case len(names) == 0:
		return noNodes(evs, RouteTable)
	case !podCIDRsRecorded(h):
		return []Result{unproven(evs, RouteTable, "routes", fmt.Sprintf("the node watch recorded %d Node(s) but none of their pod CIDRs", len(names)))}
	}
	routes := parseRoutes(raw)
	live, gone := nodesAt(h, snap.Time)
	if len(live) == 0 && len(routes) == 0 {
		return []Result{notJudged(RouteTable, "routes", "no Node holds a pod CIDR and the cloud has no route: routes are not in use")}
	}
	cited := append(routeRefusals(evs), routeErrors(evs, snap.Time)...)
	var out []Result
	for _, n := range sortedKeys(live) {
		out = append(out, nodeRoutes(n, live[n], routes, snap.Time, cited, cfg.settle()))
	}
	return append(out, danglingRoutes(routes, live, gone, snap.Time, cited, cfg.settle())...)
}

// routeErrorsBefore is how far before the snapshot the route controller's
// logged errors are cited: what kept it from mending the table lately.
const routeErrorsBefore = 10 * time.Minute

// routeErrors are the errors the route controller logged up to the
// snapshot (k8s.io/cloud-provider controllers/route/route_controller.go:
// "Couldn't reconcile node routes: ..." is logged, never an Event).
func routeErrors(evs []timeline.Event, snap time.Time) []string {
	return loggedErrors(evs, snap.Add(-routeErrorsBefore), snap, bySource("route_controller.go"), maxLoggedCited)
}

// routeRefusals is the cloud audit's account of route changes it refused
// (none when it refused none): why the route controller could not mend the
// table (credentials without the permission answer 403).
func routeRefusals(evs []timeline.Event) []string {
	return auditRefusals(evs, func(op, _ string) bool { return op == "CreateRoute" || op == "DeleteRoute" })
}

// auditRefusals counts the managers' calls the cloud failed among those
// match selects, by manager, operation, status and the knob behind it.
func auditRefusals(evs []timeline.Event, match func(op, resource string) bool) []string {
	counts := map[string]int{}
	for _, e := range evs {
		op := e.Attrs["operation"]
		if e.Kind != timeline.CloudCall || !match(op, e.Attrs["resource"]) {
			continue
		}
		if st, err := strconv.Atoi(e.Attrs["status"]); err != nil || st < 400 {
			continue
		}
		why := e.Attrs["status"]
		if f := e.Attrs["fault"]; f != "" {
			why += ", knob " + f
		}
		counts[fmt.Sprintf("%s refused %s (%s)", e.Manager, op, why)]++
	}
	var out []string
	for _, k := range sortedKeys(counts) {
		out = append(out, fmt.Sprintf("cloud audit: %s %d time(s)", k, counts[k]))
	}
	return out
}

// nodeCIDRs is a live Node's pod CIDRs and since when it has held them.
type nodeCIDRs struct {
	cidrs []string
	since time.Time
}

// nodesAt reads each Node's history up to t: the Nodes there then with
// their pod CIDRs (and since when they held them), and when each Node that
// had gone went.
func nodesAt(h map[string][]timeline.Event, t time.Time) (map[string]nodeCIDRs, map[string]time.Time) {
	live, gone := map[string]nodeCIDRs{}, map[string]time.Time{}
	for n, evs := range h {
		var cur nodeCIDRs
		present := false
		for _, e := range evs {
			switch {
			case e.Time.After(t):
			case e.Kind == timeline.NodeDeleted:
				present, gone[n] = false, e.Time
			default:
				if cidrs := e.Attrs["podCIDRs"]; !present || cidrs != strings.Join(cur.cidrs, ",") {
					cur = nodeCIDRs{cidrs: split(cidrs), since: e.Time}
				}
				present = true
				delete(gone, n)
			}
		}
		if present && len(cur.cidrs) > 0 {
			live[n] = cur
		}
	}
	return live, gone
}

// nodeRoutes judges one Node's routes, unless its ranges are too young;
// cited is what the cloud refused and the route controller logged.
func nodeRoutes(n string, c nodeCIDRs, routes []route, at time.Time, cited []string, settle time.Duration) Result {
	if age := at.Sub(c.since); age < settle {
		return notJudged(RouteTable, n, fmt.Sprintf("its pod CIDR came %s before the end snapshot, within %s (route-settle)", age.Round(100*time.Millisecond), settle))
	}
	var vs []Violation
	for _, cidr := range c.cidrs {
		mine, others := 0, []string{}
		for _, r := range routes {
			switch {
			case r.dest == cidr && r.target == n:
				mine++
			case r.dest == cidr:
				others = append(others, r.target)
			}
		}
		if mine != 1 || len(others) > 0 {
			msg := fmt.Sprintf("pod CIDR %s has %d route(s) to it", cidr, mine)
			if len(others) > 0 {
				msg += " and routes to " + strings.Join(others, ", ")
			}
			vs = append(vs, Violation{From: c.since, To: at, Sources: []string{"nodes", "cloud"}, Message: msg,
				Evidence: append([]string{fmt.Sprintf("%s pod CIDRs %s since then", clock(c.since), strings.Join(c.cidrs, ",")), clock(at) + " snapshot: routes " + routesList(routes)}, cited...)})
		}
	}
	return result(RouteTable, n, vs, "one route for each pod CIDR ("+strings.Join(c.cidrs, ",")+")", map[string]float64{"wrong": float64(len(vs))})
}

// danglingRoutes: routes to Nodes that are gone (for longer than a
// reconciliation) or that were never seen, and blackholes.
func danglingRoutes(routes []route, live map[string]nodeCIDRs, gone map[string]time.Time, at time.Time, cited []string, settle time.Duration) []Result {
	byTarget := map[string][]string{}
	for _, r := range routes {
		if _, ok := live[r.target]; ok {
			continue
		}
		if went, ok := gone[r.target]; ok && at.Sub(went) < settle {
			continue
		}
		byTarget[r.target] = append(byTarget[r.target], r.dest)
	}
	var out []Result
	for _, t := range sortedKeys(byTarget) {
		why := "a Node never seen"
		if went, ok := gone[t]; ok {
			why = "a Node deleted at " + clock(went)
		}
		if t == "blackhole" {
			why = "no instance (a blackhole)"
		}
		msg := fmt.Sprintf("route(s) for %s point at %s", strings.Join(byTarget[t], ","), why)
		out = append(out, result(RouteTable, t, []Violation{{From: at, To: at, Sources: []string{"cloud"}, Message: msg,
			Evidence: append([]string{clock(at) + " snapshot: routes " + routesList(routes)}, cited...)}}, msg, nil))
	}
	return out
}

func parseRoutes(raw string) []route {
	var out []route
	for _, r := range split(raw) {
		dest, target, _ := strings.Cut(r, ">")
		out = append(out, route{dest: dest, target: target})
	}
	return out
}

func routesList(routes []route) string {
	if len(routes) == 0 {
		return "none"
	}
	parts := make([]string, len(routes))
	for i, r := range routes {
		parts[i] = r.dest + ">" + r.target
	}
	return strings.Join(parts, ",")
}

// settle is the route-settle threshold, the default where none is set.
func (c Config) settle() time.Duration {
	if c.RouteSettle <= 0 {
		return routeSettle
	}
	return c.RouteSettle
}
