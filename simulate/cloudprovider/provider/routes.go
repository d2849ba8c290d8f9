package provider

import (
	"context"
	"strings"

	"k8s.io/apimachinery/pkg/types"
	cloudprovider "k8s.io/cloud-provider"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// ListRoutes lists the cluster's routes.
func (c *Cloud) ListRoutes(ctx context.Context, clusterName string) ([]*cloudprovider.Route, error) {
	routes, err := c.client.Routes(ctx, ctrlRoute)
	if err != nil {
		return nil, err
	}
	var out []*cloudprovider.Route
	for _, r := range routes {
		if !strings.HasPrefix(r.Name, clusterName+"-") {
			continue
		}
		out = append(out, &cloudprovider.Route{Name: r.Name, TargetNode: types.NodeName(r.TargetInstance),
			DestinationCIDR: r.DestinationCIDR, Blackhole: r.Blackhole})
	}
	return out, nil
}

// CreateRoute sends a node's pod CIDR to it.
func (c *Cloud) CreateRoute(ctx context.Context, clusterName, nameHint string, route *cloudprovider.Route) error {
	return c.client.CreateRoute(ctx, ctrlRoute, api.Route{Name: clusterName + "-" + nameHint,
		DestinationCIDR: route.DestinationCIDR, TargetInstance: string(route.TargetNode)})
}

// DeleteRoute removes a route.
func (c *Cloud) DeleteRoute(ctx context.Context, _ string, route *cloudprovider.Route) error {
	return c.client.DeleteRoute(ctx, ctrlRoute, route.Name)
}
