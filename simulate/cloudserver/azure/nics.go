package azure

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// Network interfaces are the cloud's instances' addresses: one an
// InternalIP, the first the VM's primary, each with one IP configuration
// in the cluster's subnet. What a PUT may change is what the providers
// change: the configuration's backend pools (the "nodeIPConfiguration"
// pool type, cloud-provider-azure@v1.30.4 pkg/provider/azure.go, and the
// in-tree provider's only one: a whole-interface PUT without If-Match,
// legacy-cloud-providers@v0.29.15 azure/azure_standard.go
// EnsureHostInPool).

// nicOf is the instance and index of an interface's name.
func nicOf(name string) (instance string, index int, ok bool) {
	if i := strings.LastIndex(name, "-nic-"); i > 0 {
		n, err := strconv.Atoi(name[i+len("-nic-"):])
		if err == nil && n > 0 {
			return name[:i], n, true
		}
	}
	instance, ok = strings.CutSuffix(name, "-nic")
	return instance, 0, ok && instance != ""
}

// nicInstance finds the instance an interface is of, and its index.
func (f *Face) nicInstance(ctx context.Context, c *call) (api.Instance, int, error) {
	notFound := f.opts.Network.errNotFound(typeNIC, c.name)
	name, i, ok := nicOf(c.name)
	if !ok {
		if _, err := f.instances(ctx, c); err != nil {
			return api.Instance{}, 0, err
		}
		return api.Instance{}, 0, notFound
	}
	in, err := f.instance(ctx, c, name, typeNIC)
	if err != nil {
		if e := asARM(err); e.Status == http.StatusNotFound {
			return api.Instance{}, 0, notFound
		}
		return api.Instance{}, 0, err
	}
	if i >= len(internalIPs(in)) {
		return api.Instance{}, 0, notFound
	}
	return in, i, nil
}

func (f *Face) getNIC(ctx context.Context, c *call) (any, error) {
	in, i, err := f.nicInstance(ctx, c)
	if err != nil {
		return nil, err
	}
	return f.nic(in, i), nil
}

// nic is an instance's i-th interface as ARM describes it.
func (f *Face) nic(in api.Instance, i int) resource {
	n := f.opts.Network
	name, ip := nicName(in.Name, i), internalIPs(in)[i]
	id := n.id(typeNIC, name)
	var pools []string
	f.state.Read(func(d *stateData) { pools = d.Pools[key(name)] })
	refs := []any{}
	for _, p := range pools {
		refs = append(refs, map[string]any{"id": p})
	}
	config := map[string]any{"id": id + "/ipConfigurations/" + ipConfigName, "name": ipConfigName,
		"type": typeNIC + "/ipConfigurations",
		"properties": map[string]any{"provisioningState": "Succeeded", "privateIPAddress": ip, "privateIPAllocationMethod": "Dynamic",
			"privateIPAddressVersion": "IPv4", "primary": true, "subnet": map[string]any{"id": n.subnetID()},
			"loadBalancerBackendAddressPools": refs}}
	res := resource{"location": n.Location, "properties": map[string]any{
		"resourceGuid": uuidOf(n.Cluster, "nic/"+name), "ipConfigurations": []any{config}, "macAddress": mac(ip, "-"),
		"primary": i == 0, "enableAcceleratedNetworking": false, "enableIPForwarding": true,
		"virtualMachine": map[string]any{"id": n.VMID(in.Name)}, "nicType": "Standard",
	}}
	return settle(res, id, name, typeNIC)
}

// putNIC sets the interface's backend pools: every pool it names must be
// a pool of a load balancer ARM has. The carriers of the frontends whose
// rules use a pool it joins or leaves gain or lose its address
// (carriers.go).
func (f *Face) putNIC(ctx context.Context, c *call) (int, any, error) {
	want, err := body(c.r)
	if err != nil {
		return 0, nil, err
	}
	in, i, err := f.nicInstance(ctx, c)
	if err != nil {
		if asARM(err).Status == http.StatusNotFound {
			return 0, nil, errUnserved("Creating network interfaces is not served by this cloud: its interfaces are its instances'.")
		}
		return 0, nil, err
	}
	current := f.nic(in, i)
	if err := ifMatch(c.r, current["etag"].(string), true); err != nil {
		return 0, nil, err
	}
	pools := poolsOf(want)
	name := nicName(in.Name, i)
	join := func(d *stateData) error {
		for _, p := range pools {
			if !d.hasPool(p) {
				return errReference(p, current["id"].(string)+"/ipConfigurations/"+ipConfigName)
			}
		}
		if len(pools) == 0 {
			delete(d.Pools, key(name))
		} else {
			d.Pools[key(name)] = pools
		}
		return nil
	}
	if err := f.changeCarried(ctx, c, join, nil); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, f.nic(in, i), nil
}

// poolsOf are the backend pools an interface's IP configurations name.
func poolsOf(nic resource) []string {
	configs, _ := props(nic)["ipConfigurations"].([]any)
	var out []string
	for _, cfg := range configs {
		m, _ := cfg.(map[string]any)
		p, _ := m["properties"].(map[string]any)
		out = append(out, ids(p["loadBalancerBackendAddressPools"])...)
	}
	return out
}

// errReference is ARM's answer to a reference to what does not exist, as
// Azure/bicep-types-az#1403 quotes it.
func errReference(ref, by string) *armError {
	return errorf(http.StatusBadRequest, "InvalidResourceReference",
		"Resource %s referenced by resource %s was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.", ref, by)
}
