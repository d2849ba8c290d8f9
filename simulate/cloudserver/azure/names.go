package azure

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
)

// The names and IDs Azure gives the cluster's resources, derived from the
// simulated cloud's names so that every caller, restart and test reaches
// the same ones.

// Network is the cluster's subscription, resource group and network: one
// virtual network with one subnet (every node container sits on one
// Docker network), its security group and its route table.
type Network struct {
	Cluster string
	// Subscription "" is behaviour.Subscription, the one the simulated
	// provider's ProviderIDs name.
	Subscription string
	// ResourceGroup "" is the cluster's name, as in those ProviderIDs.
	ResourceGroup string
	// Location is the region's name as ARM spells it (lower case, no
	// spaces).
	Location string
	// Zones are the cloud's zones in order: the i-th is Azure's zone
	// "i+1" in Location.
	Zones []string
	// CIDR is the node network's, the virtual network's and the subnet's
	// address space.
	CIDR string
	// AvailabilitySet, when set, holds every VM, and no VM is zonal: Azure
	// places a VM in an availability set or in a zone, never both. The
	// in-tree provider's basic load balancers take only the VMs of its
	// primaryAvailabilitySetName (legacy-cloud-providers@v0.29.15
	// azure/azure_standard.go, getPrimaryInterfaceWithVMSet).
	AvailabilitySet string
}

func (n Network) subscription() string {
	if n.Subscription != "" {
		return n.Subscription
	}
	return behaviour.Subscription
}

func (n Network) group() string {
	if n.ResourceGroup != "" {
		return n.ResourceGroup
	}
	return n.Cluster
}

// The network's resources, named after the cluster.
func (n Network) VNet() string          { return n.Cluster + "-vnet" }
func (n Network) Subnet() string        { return n.Cluster + "-subnet" }
func (n Network) SecurityGroup() string { return n.Cluster + "-nsg" }
func (n Network) RouteTable() string    { return n.Cluster + "-routetable" }

// Resource types, as ARM names them in IDs and in "type".
const (
	typeVM              = "Microsoft.Compute/virtualMachines"
	typeAvailabilitySet = "Microsoft.Compute/availabilitySets"
	typeNIC             = "Microsoft.Network/networkInterfaces"
	typePublicIP        = "Microsoft.Network/publicIPAddresses"
	typeLoadBalancer    = "Microsoft.Network/loadBalancers"
	typeSecurityGroup   = "Microsoft.Network/networkSecurityGroups"
	typeRouteTable      = "Microsoft.Network/routeTables"
	typeVNet            = "Microsoft.Network/virtualNetworks"
	typeSubnet          = "Microsoft.Network/virtualNetworks/subnets"
)

// groupID is the resource group's ID.
func (n Network) groupID() string {
	return "/subscriptions/" + n.subscription() + "/resourceGroups/" + n.group()
}

// id is a resource's ID in the resource group.
func (n Network) id(typ, name string) string { return n.groupID() + "/providers/" + typ + "/" + name }

// subnetID is the cluster's subnet's ID.
func (n Network) subnetID() string { return n.id(typeVNet, n.VNet()) + "/subnets/" + n.Subnet() }

// VMID is the ARM ID of an instance's VM.
func (n Network) VMID(instance string) string { return n.id(typeVM, instance) }

// ProviderID is the ProviderID both azure providers form for a VM:
// "azure://" and the VM's ID with the resource group lower-cased
// (legacy-cloud-providers@v0.29.15 azure/azure_standard.go
// GetInstanceIDByNodeName; cloud-provider-azure@v1.30.4
// pkg/provider/azure_instances_v1.go getLocalInstanceProviderID).
func (n Network) ProviderID(instance string) string {
	id := n.VMID(instance)
	return "azure://" + strings.Replace(id, "/resourceGroups/"+n.group()+"/", "/resourceGroups/"+strings.ToLower(n.group())+"/", 1)
}

// nicName names an instance's interface by index: a VM has one per
// InternalIP, its primary first.
func nicName(instance string, i int) string {
	if i == 0 {
		return instance + "-nic"
	}
	return instance + "-nic-" + strconv.Itoa(i)
}

// ipConfigName is every interface's one IP configuration's name.
const ipConfigName = "ipconfig1"

// uuidOf is a stable UUID-shaped ID for what, as Azure gives VMs (vmId)
// and resources (resourceGuid) theirs.
func uuidOf(cluster, what string) string {
	sum := sha256.Sum256([]byte(cluster + "/" + what))
	h := hex.EncodeToString(sum[:16])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// zone is Azure's name of the cloud zone an instance is in: "1", "2", ...
// ("" when VMs are in an availability set, or the zone is not known).
func (n Network) zone(in api.Instance) string {
	if n.AvailabilitySet != "" {
		return ""
	}
	if i := slices.Index(n.Zones, in.Zone); i >= 0 {
		return strconv.Itoa(i + 1)
	}
	return ""
}

// azureZones are the zones' Azure names.
func (n Network) azureZones() []string {
	out := []string{}
	for i := range n.Zones {
		out = append(out, strconv.Itoa(i+1))
	}
	return out
}

// vmSize is an instance's size: its type when that is one of Azure's
// (Standard_..., Basic_...), else defaultVMSize.
func vmSize(in api.Instance) string {
	if strings.HasPrefix(in.Type, "Standard_") || strings.HasPrefix(in.Type, "Basic_") {
		return in.Type
	}
	return defaultVMSize
}

// defaultVMSize is a general-purpose size with two vCPUs, a kind node's
// share of this host.
const defaultVMSize = "Standard_D2s_v3"

// internalIPs are an instance's InternalIPs, its primary interface's first.
func internalIPs(in api.Instance) []string {
	var out []string
	for _, a := range in.Addresses {
		if a.Type == "InternalIP" {
			out = append(out, a.Address)
		}
	}
	return out
}

// mac is an interface's address as Azure writes it ("00-0D-3A-..."), the
// Docker form of its IPv4 address (02:42 and the four bytes); IMDS writes
// it without separators.
func mac(ip, sep string) string {
	v4 := net.ParseIP(ip).To4()
	if v4 == nil {
		v4 = net.IPv4zero.To4()
	}
	return fmt.Sprintf("02%s42%s%02X%s%02X%s%02X%s%02X", sep, sep, v4[0], sep, v4[1], sep, v4[2], sep, v4[3])
}

// ClientID is the client ID of the user-assigned identity a cluster's
// component is issued: stable, so the cluster's azure.json files and its
// cloud, started apart, agree on it.
func ClientID(cluster, principal string) string { return uuidOf(cluster, "identity/"+principal) }

// LocationOf is a region's name as ARM spells a location: lower case
// letters and digits ("sim-region-1" is "simregion1").
func LocationOf(region string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(region) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
