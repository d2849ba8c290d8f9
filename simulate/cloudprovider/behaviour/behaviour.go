// Package behaviour says how each provider's cloud-controller-manager
// differs from upstream's where a migration can tell, for the simulated
// manager to behave as it (simulate/cloudprovider/ccmcontrollers). It
// imports nothing, so handover's own packages can validate a provider name
// against it. The facts are read from each provider's source in
// providers/profiles; a test there keeps these rows equal to them.
package behaviour

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Behaviour is one provider's manager.
type Behaviour struct {
	// IgnoresLeaderMigration: the manager accepts --enable-leader-migration
	// and --leader-migration-config and has no filter that reads them, so
	// it runs every controller under its own lease.
	IgnoresLeaderMigration bool
	// NodeIPAM is its node-IPAM controller's key; "" keeps the name of the
	// minor's kube-controller-manager.
	NodeIPAM string
	// NodeIPAMOnByDefault: node IPAM starts under "*" whenever
	// --allocate-node-cidrs is set (nothing is disabled by default);
	// upstream's manager needs it named in --controllers.
	NodeIPAMOnByDefault bool
	// ProviderID is the form of an instance's ProviderID, <cluster> and
	// <node> standing for the cluster's and the node's names; "" is
	// kind's own. In-tree kubelets and the cloud node controllers both
	// use it, as the provider's in-tree and external code do.
	ProviderID string
	// LoadBalancer names a Service's load balancer: <cluster> and
	// <default> (cloudprovider.DefaultLoadBalancerName) stand in it; ""
	// is "<cluster>-<default>". Group is the load balancer it is a
	// frontend of, for a provider with one per cluster ("" for none).
	LoadBalancer, Group string
}

// kindProviderID is kind's own ProviderID (the kubelet --provider-id kind
// writes, pkg/cluster/internal/kubeadm/config.go), which the simulated
// provider keeps.
const kindProviderID = "kind://docker/<cluster>/<node>"

// Subscription is the simulated Azure subscription in ProviderIDs.
const Subscription = "00000000-0000-0000-0000-000000000000"

// ProviderIDOf is node's ProviderID in cluster.
func (b Behaviour) ProviderIDOf(cluster, node string) string {
	form := b.ProviderID
	if form == "" {
		form = kindProviderID
	}
	return strings.NewReplacer("<cluster>", cluster, "<node>", node).Replace(form)
}

// Scheme is what precedes "://" in its ProviderIDs: the name the
// provider gives itself (cloudprovider.Interface.ProviderName), from
// which in-tree kubelets form their ProviderIDs.
func (b Behaviour) Scheme() string {
	scheme, _, _ := strings.Cut(b.ProviderIDOf("", ""), "://")
	return scheme
}

// LoadBalancerOf is the name of a Service's load balancer, given the
// manager's --cluster-name and the Service's default name, and the load
// balancer it is a frontend of ("" when each is its own).
func (b Behaviour) LoadBalancerOf(cluster, defaultName string) (name, group string) {
	form := b.LoadBalancer
	if form == "" {
		form = "<cluster>-<default>"
	}
	r := strings.NewReplacer("<cluster>", cluster, "<default>", defaultName)
	return r.Replace(form), r.Replace(b.Group)
}

// Of are the providers the simulated manager can behave as, by the name a
// cluster's cloud-config gives; "" and "simulated" are upstream's manager.
var Of = map[string]Behaviour{
	"":          {},
	"simulated": {},
	// sigs.k8s.io/cloud-provider-azure: its own app package, no
	// leader-migration code; node IPAM under "node-ipam", nothing disabled
	// by default; ProviderIDs are the VM's ARM ID with the resource group
	// lowercased (here the cluster's name: kind names are lowercase); one
	// load balancer per cluster, a frontend per Service named by the
	// Service's default name.
	"azure": {IgnoresLeaderMigration: true, NodeIPAM: "node-ipam", NodeIPAMOnByDefault: true,
		ProviderID:   "azure:///subscriptions/" + Subscription + "/resourceGroups/<cluster>/providers/Microsoft.Compute/virtualMachines/<node>",
		LoadBalancer: "<default>", Group: "<cluster>"},
}

// Lookup finds the behaviour of a provider the simulated manager can
// imitate, or says which it can.
func Lookup(name string) (Behaviour, error) {
	if b, ok := Of[name]; ok {
		return b, nil
	}
	known := slices.DeleteFunc(slices.Sorted(maps.Keys(Of)), func(n string) bool { return n == "" })
	return Behaviour{}, fmt.Errorf("%q: the simulated cloud-controller-manager can behave as %s only", name, strings.Join(known, ", "))
}
