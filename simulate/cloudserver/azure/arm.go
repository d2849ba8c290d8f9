package azure

import (
	"context"
	"net/http"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudserver/registry"
)

// call is one ARM call the face serves.
type call struct {
	caller
	r       *http.Request
	name    string // the resource's name; "" lists the type
	parent  string // the parent's name, for a child type (subnets)
	action  string // ARM's operation name, for the call log and refusals
	version string
}

// kind is one resource type the face serves: what it does for each
// method, nil where it serves none.
type kind struct {
	namespace, typ string // "Microsoft.Network", "loadBalancers" or "virtualNetworks/subnets"
	get, list      func(context.Context, *call) (any, error)
	put            func(context.Context, *call) (int, any, error)
	del            func(context.Context, *call) (int, error)
}

// kinds are the resource types served, under the cluster's resource
// group: what the research table of the providers' calls lists for a
// cluster of availability-set VMs (vmType standard). Scale sets and
// private link services are listed empty: the cloud-controller-manager
// lists both (its default vmType is vmss; its service controller reads
// private link services) and a resource group without any answers so.
func (f *Face) kinds() []kind {
	return []kind{
		{namespace: "Microsoft.Compute", typ: "virtualMachines", get: f.getVM, list: f.listVMs},
		{namespace: "Microsoft.Compute", typ: "availabilitySets", get: f.getAvailabilitySet, list: f.listAvailabilitySets},
		{namespace: "Microsoft.Compute", typ: "virtualMachineScaleSets", list: f.listNone},
		{namespace: "Microsoft.Network", typ: "networkInterfaces", get: f.getNIC, put: f.putNIC},
		{namespace: "Microsoft.Network", typ: "publicIPAddresses", get: f.getPublicIP, list: f.listPublicIPs, put: f.putPublicIP, del: f.deletePublicIP},
		{namespace: "Microsoft.Network", typ: "loadBalancers", get: f.getLB, list: f.listLBs, put: f.putLB, del: f.deleteLB},
		{namespace: "Microsoft.Network", typ: "networkSecurityGroups", get: f.getNSG, put: f.putNSG},
		{namespace: "Microsoft.Network", typ: "routeTables", get: f.getRouteTable, put: f.putRouteTable},
		{namespace: "Microsoft.Network", typ: "virtualNetworks", get: f.getVNet},
		{namespace: "Microsoft.Network", typ: "virtualNetworks/subnets", get: f.getSubnet},
		{namespace: "Microsoft.Network", typ: "privateLinkServices", list: f.listNone},
	}
}

// operation is the ARM operation name of a method on a type.
func operation(typ, method string) string {
	switch method {
	case http.MethodPut:
		return typ + "/write"
	case http.MethodDelete:
		return typ + "/delete"
	}
	return typ + "/read"
}

// serveARM answers one ARM call and records it.
func (f *Face) serveARM(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == registry.ExchangePath {
		f.serveExchange(w, r)
		return
	}
	rec := Record{Time: f.opts.Now(), Service: "arm", RemoteAddr: r.RemoteAddr, APIVersion: r.URL.Query().Get("api-version"), Status: http.StatusOK}
	status, body, err := f.arm(r, &rec)
	if err != nil {
		e := asARM(err)
		rec.Status, rec.Code, rec.Message, rec.Fault = e.Status, e.Code, e.Message, e.Fault
		rec.Unimplemented = rec.Unimplemented || e.Unimplemented
		e.write(w)
	} else {
		rec.Status = status
		if body == nil {
			w.WriteHeader(status)
		} else {
			writeJSON(w, status, body)
		}
	}
	if f.opts.Record != nil {
		f.opts.Record(rec)
	}
}

// arm authenticates, routes and answers a call.
func (f *Face) arm(r *http.Request, rec *Record) (int, any, error) {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(segs) == 2 && strings.EqualFold(segs[0], "metadata") && strings.EqualFold(segs[1], "endpoints") {
		rec.Action = "metadata/endpoints"
		return f.metadataEndpoints(r)
	}
	who, err := f.authenticate(r)
	if err != nil {
		return 0, nil, err
	}
	rec.Principal, rec.Node = who.Principal, who.Node
	if rec.APIVersion == "" {
		return 0, nil, errNoVersion()
	}
	if len(segs) == 3 && strings.EqualFold(segs[0], "subscriptions") && strings.EqualFold(segs[2], "providers") {
		rec.Action = "Microsoft.Resources/subscriptions/providers/read"
		if err := f.subscription(segs[1]); err != nil {
			return 0, nil, err
		}
		return f.providers(r, who, rec.APIVersion)
	}
	c, k, err := f.route(r, segs, who, rec)
	if err != nil {
		return 0, nil, err
	}
	return f.dispatch(r.Context(), c, k, rec)
}

// route finds the type and resource a resource path names: /subscriptions
// /{s}/resourceGroups/{g}/providers/{namespace}/{type}[/{name}[/{child
// type}/{child name}]].
func (f *Face) route(r *http.Request, segs []string, who caller, rec *Record) (*call, kind, error) {
	if len(segs) < 7 || !strings.EqualFold(segs[0], "subscriptions") || !strings.EqualFold(segs[2], "resourceGroups") || !strings.EqualFold(segs[4], "providers") {
		rec.Action, rec.Unimplemented = r.Method+" "+r.URL.Path, true
		return nil, kind{}, errorf(http.StatusNotFound, "NotFound", "This cloud serves resources of its resource group under /subscriptions/ only: %s %s", r.Method, r.URL.Path)
	}
	ns, rest := segs[5], segs[6:]
	typ, name, parent := rest[0], "", ""
	switch len(rest) {
	case 1:
	case 2:
		name = rest[1]
	case 4:
		typ, parent, name = rest[0]+"/"+rest[2], rest[1], rest[3]
	default:
		typ = strings.Join(rest, "/")
	}
	c := &call{caller: who, r: r, name: name, parent: parent, version: rec.APIVersion, action: operation(ns+"/"+typ, r.Method)}
	rec.Action, rec.Resource = c.action, name
	if err := f.subscription(segs[1]); err != nil {
		return nil, kind{}, err
	}
	if !strings.EqualFold(segs[3], f.opts.Network.group()) {
		return nil, kind{}, errNoGroup(segs[3])
	}
	for _, k := range f.kinds() {
		if strings.EqualFold(k.namespace, ns) && strings.EqualFold(k.typ, typ) {
			// The operation as ARM spells it, whatever the path's case.
			c.action = operation(k.namespace+"/"+k.typ, r.Method)
			rec.Action = c.action
			if e := f.checkVersion(ns, typ, c.version); e != nil {
				return nil, kind{}, e
			}
			return c, k, nil
		}
	}
	rec.Unimplemented = true
	// As ARM answers a type it does not know (Azure/azure-powershell#11022).
	return nil, kind{}, errorf(http.StatusNotFound, "InvalidResourceType", "The resource type could not be found in the namespace '%s' for api version '%s'.", ns, c.version)
}

// subscription refuses every subscription but the cluster's.
func (f *Face) subscription(id string) error {
	if !strings.EqualFold(id, f.opts.Network.subscription()) {
		return errorf(http.StatusNotFound, "SubscriptionNotFound", "The subscription '%s' could not be found.", id)
	}
	return nil
}

// dispatch runs the type's handler for the method; a method the face does
// not serve on the type is refused, as ARM refuses one the type lacks, and
// marked unimplemented.
func (f *Face) dispatch(ctx context.Context, c *call, k kind, rec *Record) (int, any, error) {
	switch {
	case c.r.Method == http.MethodGet && c.name != "" && k.get != nil:
		out, err := k.get(ctx, c)
		return http.StatusOK, out, err
	case c.r.Method == http.MethodGet && c.name == "" && k.list != nil:
		out, err := k.list(ctx, c)
		return http.StatusOK, out, err
	case c.r.Method == http.MethodPut && c.name != "" && k.put != nil:
		return k.put(ctx, c)
	case c.r.Method == http.MethodDelete && c.name != "" && k.del != nil:
		status, err := k.del(ctx, c)
		return status, nil, err
	}
	return 0, nil, errUnserved("The requested method %s is not served for %s/%s by this cloud.", c.r.Method, k.namespace, k.typ)
}
