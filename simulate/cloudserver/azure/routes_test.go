package azure_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

const routeTable = "Microsoft.Network/routeTables/c-routetable"

func routesBody(routes ...[3]string) map[string]any {
	var out []any
	for _, r := range routes {
		p := map[string]any{"addressPrefix": r[1], "nextHopType": "VirtualAppliance", "nextHopIpAddress": r[2]}
		if r[2] == "" {
			p = map[string]any{"addressPrefix": r[1], "nextHopType": "None"}
		}
		out = append(out, map[string]any{"name": r[0], "properties": p})
	}
	return map[string]any{"location": location, "properties": map[string]any{"routes": out}}
}

// The route table is the cloud's routes: a whole-table PUT creates and
// deletes them, a stale etag is refused, and what another writer changed
// shows.
func TestTheRouteTableIsTheCloudsRoutes(t *testing.T) {
	r := newRig(t, t.TempDir())
	tok := r.token(t, ccmClient)
	ctx := context.Background()
	get := r.arm(t, tok, http.MethodGet, routeTable, "2022-07-01", nil, nil)
	etag, _ := get.body["etag"].(string)
	if get.status != http.StatusOK || etag == "" {
		t.Fatalf("GET: %d %s", get.status, get.raw)
	}
	// In-tree names and the CCM's, side by side (the research note's §0.2).
	put := r.arm(t, tok, http.MethodPut, routeTable, "2022-07-01", map[string]string{"If-Match": etag},
		routesBody([3]string{"c-worker____102441024", "10.244.1.0/24", "172.18.0.3"}, [3]string{"c-control-plane", "10.244.0.0/24", "172.18.0.2"}))
	if put.status != http.StatusOK {
		t.Fatalf("PUT: %d %s", put.status, put.raw)
	}
	routes, err := r.admin().Routes(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []api.Route{{Name: "c-c-control-plane", DestinationCIDR: "10.244.0.0/24", TargetInstance: "c-control-plane"},
		{Name: "c-c-worker____102441024", DestinationCIDR: "10.244.1.0/24", TargetInstance: "c-worker"}}
	if !slices.Equal(routes, want) {
		t.Errorf("the cloud's routes %+v, want %+v", routes, want)
	}
	if again := r.arm(t, tok, http.MethodPut, routeTable, "2022-07-01", map[string]string{"If-Match": etag}, routesBody()); again.status != http.StatusPreconditionFailed || again.code() != "PreconditionFailed" {
		t.Errorf("a PUT with the old etag: %d %s", again.status, again.raw)
	}
	// Another writer (the simulated provider) adds a route: the etag moves.
	if err := r.admin().CreateRoute(ctx, "", api.Route{Name: "c-other", DestinationCIDR: "10.244.2.0/24", TargetInstance: "c-local"}); err != nil {
		t.Fatal(err)
	}
	if stale := r.arm(t, tok, http.MethodPut, routeTable, "2022-07-01", map[string]string{"If-Match": put.body["etag"].(string)}, routesBody()); stale.status != http.StatusPreconditionFailed {
		t.Errorf("a PUT after another writer's change: %d %s", stale.status, stale.raw)
	}
	fresh := r.arm(t, tok, http.MethodGet, routeTable, "2022-07-01", nil, nil)
	del := r.arm(t, tok, http.MethodPut, routeTable, "2022-07-01", map[string]string{"If-Match": fresh.body["etag"].(string)},
		routesBody([3]string{"c-control-plane", "10.244.0.0/24", "172.18.0.2"}, [3]string{"drop", "10.244.9.0/24", ""}))
	if del.status != http.StatusOK {
		t.Fatalf("PUT: %d %s", del.status, del.raw)
	}
	routes, _ = r.admin().Routes(ctx, "")
	want = []api.Route{{Name: "c-c-control-plane", DestinationCIDR: "10.244.0.0/24", TargetInstance: "c-control-plane"},
		{Name: "c-drop", DestinationCIDR: "10.244.9.0/24", Blackhole: true}}
	if !slices.Equal(routes, want) {
		t.Errorf("after the second PUT the cloud's routes are %+v, want %+v", routes, want)
	}
	if bad := r.arm(t, tok, http.MethodPut, routeTable, "2022-07-01", nil, routesBody([3]string{"x", "10.244.3.0/24", "192.0.2.1"})); bad.status != http.StatusBadRequest {
		t.Errorf("a next hop that is no VM's: %d %s", bad.status, bad.raw)
	}
	if other := r.arm(t, tok, http.MethodGet, "Microsoft.Network/routeTables/other", "2022-07-01", nil, nil); other.status != http.StatusNotFound {
		t.Errorf("another table: %d %s", other.status, other.raw)
	}
}
