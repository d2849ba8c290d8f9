package azure

import (
	"context"
	"net"
	"net/http"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// Virtual machines are the cloud's instances, in the shape the providers
// read (the compute 2019-12-01 and 2022-08-01 models of
// azure-sdk-for-go@v68.0.0): ID, location, zones, size, the primary
// interface, the availability set, and with $expand=instanceView the
// provisioning and power states the lifecycle controllers test
// (legacy-cloud-providers@v0.29.15 azure/azure_instances.go
// InstanceShutdownByProviderID reads PowerState/*).

// instances lists the cloud's instances as the caller.
func (f *Face) instances(ctx context.Context, c *call) ([]api.Instance, error) {
	all, err := f.cloud(c.caller).Instances(ctx, c.action)
	if err != nil {
		return nil, refusal(err, c.caller, c.action, nil)
	}
	f.remember(all)
	return all, nil
}

// instance is the named instance, or ARM's 404 for notFound's type.
func (f *Face) instance(ctx context.Context, c *call, name, typ string) (api.Instance, error) {
	notFound := f.opts.Network.errNotFound(typ, name)
	in, err := f.cloud(c.caller).Instance(ctx, c.action, name)
	if err != nil {
		return api.Instance{}, refusal(err, c.caller, c.action, notFound)
	}
	f.remember([]api.Instance{*in})
	return *in, nil
}

// remember keeps each instance's primary address, for the routes to it.
func (f *Face) remember(all []api.Instance) {
	changed := false
	f.state.Read(func(d *stateData) {
		for _, in := range all {
			if ips := internalIPs(in); len(ips) > 0 && d.Seen[in.Name] != ips[0] {
				changed = true
			}
		}
	})
	if !changed {
		return
	}
	_ = f.state.Change(func(d *stateData) error {
		for _, in := range all {
			if ips := internalIPs(in); len(ips) > 0 {
				d.Seen[in.Name] = ips[0]
			}
		}
		return nil
	})
}

func (f *Face) getVM(ctx context.Context, c *call) (any, error) {
	in, err := f.instance(ctx, c, c.name, typeVM)
	if err != nil {
		return nil, err
	}
	return f.vm(in, expandsInstanceView(c.r)), nil
}

func (f *Face) listVMs(ctx context.Context, c *call) (any, error) {
	all, err := f.instances(ctx, c)
	if err != nil {
		return nil, err
	}
	out := make([]any, 0, len(all))
	for _, in := range all {
		out = append(out, f.vm(in, false))
	}
	return f.page(c, out)
}

// expandsInstanceView: the call asks for the instance view ($expand, as
// the providers' vmclient sends it).
func expandsInstanceView(r *http.Request) bool {
	return strings.EqualFold(r.URL.Query().Get("$expand"), "instanceView")
}

// vm is an instance as ARM describes its VM.
func (f *Face) vm(in api.Instance, instanceView bool) resource {
	n := f.opts.Network
	var nics []any
	for i := range internalIPs(in) {
		nics = append(nics, map[string]any{"id": n.id(typeNIC, nicName(in.Name, i)), "properties": map[string]any{"primary": i == 0}})
	}
	props := map[string]any{
		"vmId":              uuidOf(n.Cluster, "vm/"+in.Name),
		"hardwareProfile":   map[string]any{"vmSize": vmSize(in)},
		"osProfile":         map[string]any{"computerName": in.Name, "adminUsername": "azureuser"},
		"storageProfile":    map[string]any{"osDisk": map[string]any{"osType": "Linux", "name": in.Name + "-osdisk", "createOption": "FromImage"}, "dataDisks": []any{}},
		"networkProfile":    map[string]any{"networkInterfaces": nics},
		"provisioningState": "Succeeded",
	}
	if n.AvailabilitySet != "" {
		// Upper case, as ARM writes it "in a non-deterministic way"
		// (legacy-cloud-providers@v0.29.15 azure/azure_standard.go
		// getAgentPoolAvailabilitySets; the providers compare it with
		// strings.EqualFold).
		props["availabilitySet"] = map[string]any{"id": strings.ToUpper(n.id(typeAvailabilitySet, n.AvailabilitySet))}
	}
	if instanceView {
		props["instanceView"] = map[string]any{"computerName": in.Name, "statuses": vmStatuses(in)}
	}
	out := resource{"id": n.VMID(in.Name), "name": in.Name, "type": typeVM, "location": n.Location, "properties": props}
	if z := n.zone(in); z != "" {
		out["zones"] = []string{z}
	}
	return out
}

// powerStates are ARM's power states of the cloud's instance states.
var powerStates = map[string]string{api.StateRunning: "PowerState/running", api.StateStopped: "PowerState/stopped"}

func vmStatuses(in api.Instance) []any {
	out := []any{map[string]any{"code": "ProvisioningState/succeeded", "level": "Info", "displayStatus": "Provisioning succeeded"}}
	if p, ok := powerStates[in.State]; ok {
		out = append(out, map[string]any{"code": p, "level": "Info", "displayStatus": "VM " + strings.TrimPrefix(p, "PowerState/")})
	}
	return out
}

// The availability set every VM is in, when the network has one.

func (f *Face) getAvailabilitySet(ctx context.Context, c *call) (any, error) {
	n := f.opts.Network
	if n.AvailabilitySet == "" || !strings.EqualFold(c.name, n.AvailabilitySet) {
		return nil, n.errNotFound(typeAvailabilitySet, c.name)
	}
	all, err := f.instances(ctx, c)
	if err != nil {
		return nil, err
	}
	return f.availabilitySet(all), nil
}

func (f *Face) listAvailabilitySets(ctx context.Context, c *call) (any, error) {
	all, err := f.instances(ctx, c)
	if err != nil {
		return nil, err
	}
	if f.opts.Network.AvailabilitySet == "" {
		return f.page(c, nil)
	}
	return f.page(c, []any{f.availabilitySet(all)})
}

func (f *Face) availabilitySet(all []api.Instance) resource {
	n := f.opts.Network
	vms := []any{}
	for _, in := range all {
		vms = append(vms, map[string]any{"id": strings.ToUpper(n.VMID(in.Name))})
	}
	return resource{"id": n.id(typeAvailabilitySet, n.AvailabilitySet), "name": n.AvailabilitySet, "type": typeAvailabilitySet,
		"location": n.Location, "sku": map[string]any{"name": "Aligned"},
		"properties": map[string]any{"platformFaultDomainCount": 2, "platformUpdateDomainCount": 5, "virtualMachines": vms}}
}

// listNone lists a type the cluster has none of.
func (f *Face) listNone(ctx context.Context, c *call) (any, error) {
	if _, err := f.instances(ctx, c); err != nil {
		return nil, err
	}
	return f.page(c, nil)
}

// instanceDocument is what the metadata service tells a VM of itself:
// the fields both providers read (legacy-cloud-providers@v0.29.15
// azure/azure_instance_metadata.go ComputeMetadata, NetworkMetadata;
// cloud-provider-azure@v1.30.4 pkg/provider/azure_instance_metadata.go,
// which adds resourceId).
func (f *Face) instanceDocument(in api.Instance) resource {
	n := f.opts.Network
	compute := map[string]any{
		"azEnvironment": "AzurePublicCloud", "location": n.Location, "name": in.Name, "osType": "Linux",
		"resourceGroupName": n.group(), "subscriptionId": n.subscription(), "resourceId": n.VMID(in.Name),
		"vmId": uuidOf(n.Cluster, "vm/"+in.Name), "vmSize": vmSize(in), "zone": n.zone(in),
		"platformFaultDomain": "0", "platformUpdateDomain": "0", "platformSubFaultDomain": "", "vmScaleSetName": "",
		"provider": "Microsoft.Compute", "tags": "",
	}
	var ifaces []any
	for _, ip := range internalIPs(in) {
		ifaces = append(ifaces, map[string]any{
			"ipv4":       map[string]any{"ipAddress": []any{map[string]any{"privateIpAddress": ip, "publicIpAddress": ""}}, "subnet": []any{f.subnetOf()}},
			"ipv6":       map[string]any{"ipAddress": []any{}},
			"macAddress": mac(ip, ""),
		})
	}
	return resource{"compute": compute, "network": map[string]any{"interface": ifaces}}
}

// subnetOf is the subnet as the metadata service writes it.
func (f *Face) subnetOf() map[string]any {
	_, cidr, err := net.ParseCIDR(f.opts.Network.CIDR)
	if err != nil {
		return map[string]any{"address": "", "prefix": ""}
	}
	ones, _ := cidr.Mask.Size()
	return map[string]any{"address": cidr.IP.String(), "prefix": itoa(ones)}
}
