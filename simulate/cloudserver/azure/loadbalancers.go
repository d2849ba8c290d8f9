package azure

import (
	"context"
	"slices"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// Load balancers are stored as PUT, their backend pools showing the
// interfaces whose PUT put them there (backendIPConfigurations, which the
// providers read to take nodes out of a pool: cloud-provider-azure@v1.30.4
// pkg/provider/azure_standard.go EnsureBackendPoolDeleted); their
// frontends' traffic is carried by the cloud's load balancers behind the
// public IPs they use (carriers.go).

// The sub-resources of a load balancer that others refer to by ID.
var lbParts = []string{"frontendIPConfigurations", "backendAddressPools", "probes", "loadBalancingRules", "inboundNatRules", "outboundRules"}

func (f *Face) lbs() stored {
	return stored{typ: typeLoadBalancer, pick: func(d *stateData) map[string]resource { return d.LoadBalancers },
		derive: deriveLB, prepare: f.prepareLB, check: f.checkLB, deleted: forgetPools, carried: true}
}

func (f *Face) getLB(ctx context.Context, c *call) (any, error) { return f.getStored(ctx, c, f.lbs()) }
func (f *Face) listLBs(ctx context.Context, c *call) (any, error) {
	return f.listStored(ctx, c, f.lbs())
}
func (f *Face) putLB(ctx context.Context, c *call) (int, any, error) {
	return f.putStored(ctx, c, f.lbs())
}
func (f *Face) deleteLB(ctx context.Context, c *call) (int, error) {
	return f.deleteStored(ctx, c, f.lbs())
}

// prepareLB gives every sub-resource its ID, as ARM does.
func (f *Face) prepareLB(_ *stateData, res, _ resource) error {
	lb, _ := res["id"].(string)
	for _, part := range lbParts {
		for _, sub := range list(props(res)[part]) {
			name, _ := sub["name"].(string)
			if _, ok := sub["id"].(string); !ok && name != "" {
				sub["id"] = lb + "/" + part + "/" + name
			}
		}
	}
	return nil
}

// checkLB refuses a load balancer that refers to what does not exist —
// a public IP address, a subnet other than the cluster's, or a part of
// its own it does not have — and takes interfaces out of the pools it no
// longer has.
func (f *Face) checkLB(d *stateData, res resource) error {
	id, _ := res["id"].(string)
	own := map[string]bool{}
	for _, part := range lbParts {
		for _, sub := range list(props(res)[part]) {
			if sid, ok := sub["id"].(string); ok {
				own[strings.ToLower(sid)] = true
			}
		}
	}
	for _, fe := range list(props(res)["frontendIPConfigurations"]) {
		p := props(fe)
		if pip := refID(p["publicIPAddress"]); pip != "" && d.PublicIPs[key(lastSegment(pip))] == nil {
			return errReference(pip, id)
		}
		if sn := refID(p["subnet"]); sn != "" && !sameID(sn, f.opts.Network.subnetID()) {
			return errReference(sn, id)
		}
	}
	for _, rule := range list(props(res)["loadBalancingRules"]) {
		p := props(rule)
		refs := append([]string{refID(p["frontendIPConfiguration"]), refID(p["backendAddressPool"]), refID(p["probe"])}, ids(p["backendAddressPools"])...)
		for _, ref := range refs {
			if ref != "" && !own[strings.ToLower(ref)] {
				return errReference(ref, id)
			}
		}
	}
	for nic, pools := range d.Pools {
		d.Pools[nic] = slices.DeleteFunc(pools, func(p string) bool { return inLB(p, id) && !own[strings.ToLower(p)] })
	}
	return nil
}

// forgetPools takes interfaces out of a deleted load balancer's pools.
func forgetPools(d *stateData, res resource) {
	id, _ := res["id"].(string)
	for nic, pools := range d.Pools {
		d.Pools[nic] = slices.DeleteFunc(pools, func(p string) bool { return inLB(p, id) })
	}
}

// inLB: a pool's ID is one of the load balancer's.
func inLB(pool, lb string) bool {
	return strings.HasPrefix(strings.ToLower(pool), strings.ToLower(lb)+"/")
}

// deriveLB shows each pool's interfaces.
func deriveLB(d *stateData, res resource) {
	for _, pool := range list(props(res)["backendAddressPools"]) {
		pid, _ := pool["id"].(string)
		var configs []any
		for _, nic := range sortedKeys(d.Pools) {
			if slices.ContainsFunc(d.Pools[nic], func(p string) bool { return sameID(p, pid) }) {
				configs = append(configs, map[string]any{"id": nicIDOfKey(res, nic) + "/ipConfigurations/" + ipConfigName})
			}
		}
		if configs != nil {
			props(pool)["backendIPConfigurations"] = configs
		}
	}
}

// nicIDOfKey is the ID of the interface the state keys by name, in the
// load balancer's resource group.
func nicIDOfKey(lb resource, nic string) string {
	id, _ := lb["id"].(string)
	group, _, _ := strings.Cut(id, "/providers/")
	return group + "/providers/" + typeNIC + "/" + nic
}

// hasPool: a load balancer ARM has has the pool of this ID.
func (d *stateData) hasPool(id string) bool {
	for _, lb := range d.LoadBalancers {
		for _, pool := range list(props(lb)["backendAddressPools"]) {
			if pid, _ := pool["id"].(string); sameID(pid, id) {
				return true
			}
		}
	}
	return false
}

// loadBalancerDocument is what the metadata service tells a VM of the
// standard load balancers its primary interface is behind: each public
// frontend's address, with the VM's (cloud-provider-azure@v1.30.4
// pkg/provider/azure_instance_metadata.go LoadBalancerMetadata; the
// in-tree provider takes the VM's public address from it).
func (f *Face) loadBalancerDocument(in api.Instance) resource {
	ips := internalIPs(in)
	out := []any{}
	f.state.Read(func(d *stateData) {
		pools := d.Pools[key(nicName(in.Name, 0))]
		for _, name := range sortedKeys(d.LoadBalancers) {
			lb := d.LoadBalancers[name]
			if !standard(lb) || !slices.ContainsFunc(pools, func(p string) bool { return inLB(p, lb["id"].(string)) }) {
				continue
			}
			for _, fe := range list(props(lb)["frontendIPConfigurations"]) {
				pip := d.PublicIPs[key(lastSegment(refID(props(fe)["publicIPAddress"])))]
				if pip == nil {
					continue
				}
				if addr, _ := props(pip)["ipAddress"].(string); addr != "" {
					out = append(out, map[string]any{"frontendIpAddress": addr, "privateIpAddress": ips[0]})
				}
			}
		}
	})
	return resource{"loadbalancer": map[string]any{"publicIpAddresses": out, "inboundRules": []any{}, "outboundRules": []any{}}}
}

// standard: the resource's SKU is Standard.
func standard(res resource) bool {
	sku, _ := res["sku"].(map[string]any)
	name, _ := sku["name"].(string)
	return strings.EqualFold(name, "Standard")
}

// list is a JSON array of objects.
func list(v any) []map[string]any {
	items, _ := v.([]any)
	var out []map[string]any
	for _, item := range items {
		if m, ok := item.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// refID is the ID of a reference ({"id": ...}).
func refID(v any) string {
	m, _ := v.(map[string]any)
	id, _ := m["id"].(string)
	return id
}

func lastSegment(id string) string {
	if i := strings.LastIndex(id, "/"); i >= 0 {
		return id[i+1:]
	}
	return id
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
