package azure

import (
	"context"
	"net/http"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// The cluster's route table is the cloud's routes named after the cluster
// (the simulated provider's and the pod network's form, "<cluster>-<name>";
// other routes are not the cluster's): a route to a VM's address
// (nextHopType VirtualAppliance) is the cloud's route to that instance,
// one of type None its blackhole. The providers read the whole table and
// write it whole, with If-Match (legacy-cloud-providers@v0.29.15
// azure/azure_routes.go delayedRouteUpdater; cloud-provider-azure@v1.30.4
// pkg/provider/azure_routes.go); its etag is its content's, so a table
// another writer changed since it was read is refused (412).

// Next hop types, as ARM names them.
const (
	hopAppliance = "VirtualAppliance"
	hopNone      = "None"
)

// table is the route table's content: its routes by their ARM name, each
// the cloud's.
func (f *Face) table(ctx context.Context, c *call) ([]api.Route, []api.Instance, error) {
	all, err := f.instances(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	routes, err := f.cloud(c.caller).Routes(ctx, c.action)
	if err != nil {
		return nil, nil, refusal(err, c.caller, c.action, nil)
	}
	prefix := f.opts.Network.Cluster + "-"
	var out []api.Route
	for _, r := range routes {
		if strings.HasPrefix(r.Name, prefix) {
			out = append(out, r)
		}
	}
	return out, all, nil
}

// checkTable refuses any route table but the cluster's.
func (f *Face) checkTable(c *call) error {
	if !strings.EqualFold(c.name, f.opts.Network.RouteTable()) {
		return f.opts.Network.errNotFound(typeRouteTable, c.name)
	}
	return nil
}

func (f *Face) getRouteTable(ctx context.Context, c *call) (any, error) {
	if err := f.checkTable(c); err != nil {
		return nil, err
	}
	routes, all, err := f.table(ctx, c)
	if err != nil {
		return nil, err
	}
	return f.routeTable(routes, all), nil
}

// routeTable is the table as ARM describes it.
func (f *Face) routeTable(routes []api.Route, all []api.Instance) resource {
	n := f.opts.Network
	id := n.id(typeRouteTable, n.RouteTable())
	addrs := f.addresses(all)
	var out []any
	for _, r := range routes {
		name := strings.TrimPrefix(r.Name, n.Cluster+"-")
		p := map[string]any{"addressPrefix": r.DestinationCIDR, "nextHopType": hopNone, "provisioningState": "Succeeded", "hasBgpOverride": false}
		if !r.Blackhole {
			p["nextHopType"], p["nextHopIpAddress"] = hopAppliance, addrs[r.TargetInstance]
		}
		route := map[string]any{"id": id + "/routes/" + name, "name": name, "type": typeRouteTable + "/routes", "properties": p}
		route["etag"] = etagOf(route)
		out = append(out, route)
	}
	res := resource{"location": n.Location, "properties": map[string]any{
		"routes": out, "disableBgpRoutePropagation": false, "resourceGuid": uuidOf(n.Cluster, "rt"),
		"subnets": []any{map[string]any{"id": n.subnetID()}},
	}}
	return settle(res, id, n.RouteTable(), typeRouteTable)
}

// addresses are the primary addresses of the instances, and of those
// seen before that are gone, by name.
func (f *Face) addresses(all []api.Instance) map[string]string {
	out := map[string]string{}
	f.state.Read(func(d *stateData) {
		for name, ip := range d.Seen {
			out[name] = ip
		}
	})
	for _, in := range all {
		if ips := internalIPs(in); len(ips) > 0 {
			out[in.Name] = ips[0]
		}
	}
	return out
}

// putRouteTable makes the cloud's routes what the table says: creating
// or replacing what differs, deleting what it no longer has.
func (f *Face) putRouteTable(ctx context.Context, c *call) (int, any, error) {
	want, err := body(c.r)
	if err != nil {
		return 0, nil, err
	}
	if err := f.checkTable(c); err != nil {
		return 0, nil, errLimit("This cloud has one route table, %s.", f.opts.Network.RouteTable())
	}
	f.routing.Lock()
	defer f.routing.Unlock()
	routes, all, err := f.table(ctx, c)
	if err != nil {
		return 0, nil, err
	}
	if e := ifMatch(c.r, f.routeTable(routes, all)["etag"].(string), true); e != nil {
		return 0, nil, e
	}
	desired, err := f.desiredRoutes(want, all)
	if err != nil {
		return 0, nil, err
	}
	if err := f.applyRoutes(ctx, c, routes, desired); err != nil {
		return 0, nil, err
	}
	routes, all, err = f.table(ctx, c)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, f.routeTable(routes, all), nil
}

// desiredRoutes are the cloud's routes a table's body asks for.
func (f *Face) desiredRoutes(table resource, all []api.Instance) (map[string]api.Route, error) {
	byIP := map[string]string{}
	for name, ip := range f.addresses(all) {
		byIP[ip] = name
	}
	out := map[string]api.Route{}
	for _, r := range list(props(table)["routes"]) {
		name, _ := r["name"].(string)
		p := props(r)
		prefix, _ := p["addressPrefix"].(string)
		hop, _ := p["nextHopType"].(string)
		ip, _ := p["nextHopIpAddress"].(string)
		route := api.Route{Name: f.opts.Network.Cluster + "-" + name, DestinationCIDR: prefix}
		switch {
		case name == "" || prefix == "":
			return nil, errorf(http.StatusBadRequest, "InvalidRequestFormat", "Cannot parse the request: a route needs a name and an addressPrefix.")
		case strings.EqualFold(hop, hopNone):
			route.Blackhole = true
		case !strings.EqualFold(hop, hopAppliance):
			return nil, errLimit("This cloud routes to VMs (%s) and drops (%s) only, not to %q.", hopAppliance, hopNone, hop)
		case byIP[ip] == "":
			return nil, errLimit("This cloud routes to its VMs' addresses only; %q is none.", ip)
		default:
			route.TargetInstance = byIP[ip]
		}
		out[route.Name] = route
	}
	return out, nil
}

// applyRoutes changes the cloud's routes from current to desired.
func (f *Face) applyRoutes(ctx context.Context, c *call, current []api.Route, desired map[string]api.Route) error {
	cloud := f.cloud(c.caller)
	have := map[string]api.Route{}
	for _, r := range current {
		have[r.Name] = r
		if _, keep := desired[r.Name]; !keep {
			if err := cloud.DeleteRoute(ctx, c.action, r.Name); err != nil {
				return refusal(err, c.caller, c.action, nil)
			}
		}
	}
	for _, name := range sortedKeys(desired) {
		if r := desired[name]; have[name] != r {
			if err := cloud.CreateRoute(ctx, c.action, r); err != nil {
				return refusal(err, c.caller, c.action, nil)
			}
		}
	}
	return nil
}
