package azure

import (
	"context"
	"strings"
)

// Network security groups are ARM's alone here: they filter no traffic.
// The cluster's own (securityGroupName) exists from the start, with no
// rules of its own: the providers add theirs at priorities 500 to 4096
// (cloud-provider-azure@v1.30.4 pkg/provider/loadbalancer/securitygroup).

func (f *Face) securityGroups() stored {
	return stored{typ: typeSecurityGroup, pick: func(d *stateData) map[string]resource { return d.SecurityGroups },
		preset: f.presetNSG}
}

func (f *Face) getNSG(ctx context.Context, c *call) (any, error) {
	return f.getStored(ctx, c, f.securityGroups())
}
func (f *Face) putNSG(ctx context.Context, c *call) (int, any, error) {
	return f.putStored(ctx, c, f.securityGroups())
}

// presetNSG is the cluster's security group as it is before any PUT.
func (f *Face) presetNSG(name string) resource {
	n := f.opts.Network
	if !strings.EqualFold(name, n.SecurityGroup()) {
		return nil
	}
	res := resource{"location": n.Location, "properties": map[string]any{
		"securityRules": []any{}, "resourceGuid": uuidOf(n.Cluster, "nsg/"+name),
		"subnets": []any{map[string]any{"id": n.subnetID()}},
	}}
	return settle(res, n.id(typeSecurityGroup, n.SecurityGroup()), n.SecurityGroup(), typeSecurityGroup)
}
