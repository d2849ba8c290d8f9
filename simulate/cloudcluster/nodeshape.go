package cloudcluster

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/handover-sh/handover/clusters/engine"
	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/simulate/simcloud"
)

// Shapes of a cluster's machines beyond what kind makes: what real
// clusters differ in where the providers disagree.

// WithSecondInterfaces gives every node the cluster is created with a
// second network interface, as the VPC CNI attaches a further ENI to an
// instance whose pods outgrow its first: a Docker network of the
// cluster's own, connected to each node container (a real eth1). The
// simulated cloud describes it as the instance's second interface
// (device index 1). Nodes that join later have one interface.
func WithSecondInterfaces() Option { return func(s *settings) { s.secondInterfaces = true } }

// WithoutNodeIP starts the cluster's kubelets without --node-ip, as
// cluster-api's AWS templates and kops start them (kind always gives
// it): each kubelet then takes its addresses from the cloud, every
// InternalIP in the provider's order, and sets no
// alpha.kubernetes.io/provided-node-ip annotation for a
// cloud-controller-manager to keep to. Nodes that join later follow the
// node they are joined from.
func WithoutNodeIP() Option { return func(s *settings) { s.noNodeIP = true } }

// unpinNodeIP is the kubeadm patch that empties kind's node-ip.
func unpinNodeIP() []string {
	kubelet := "\nnodeRegistration:\n  kubeletExtraArgs:\n    node-ip: \"\""
	return []string{"kind: InitConfiguration" + kubelet, "kind: JoinConfiguration" + kubelet}
}

// interfaceNetwork is the network of a cluster's second interfaces.
func interfaceNetwork(cluster string) string { return cluster + "-eni1" }

// interfaceSubnet is that network's subnet: a /24 of the shared address
// space 100.64.0.0/10, where VPC CNI custom networking puts its further
// ENIs (kubernetes/cloud-provider-aws#911 shows one at 100.64.2.164), chosen
// by the cluster's name.
func interfaceSubnet(cluster string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(cluster))
	return fmt.Sprintf("100.64.%d.0/24", h.Sum32()%256)
}

// attachSecondInterfaces connects every node of c to the cluster's
// interface network. The network is internal (no gateway): joining it
// leaves each node's default route, and so its own address, on kind's
// network.
func attachSecondInterfaces(ctx context.Context, c *kindcluster.Cluster) error {
	name := interfaceNetwork(c.Name)
	err := engine.CreateNetwork(ctx, engine.NetworkSpec{Name: name, Subnet: interfaceSubnet(c.Name), Internal: true,
		Labels: map[string]string{simcloud.ClusterLabel: c.Name}})
	if err != nil {
		return fmt.Errorf("the second interfaces' network: %w", err)
	}
	ns, err := c.Nodes()
	if err != nil {
		return err
	}
	for _, n := range ns {
		if err := engine.ConnectNetwork(ctx, name, n.String()); err != nil {
			return err
		}
	}
	return nil
}

// removeInterfaceNetworks removes the cluster's interface network.
func removeInterfaceNetworks(ctx context.Context, cluster string) error {
	return engine.RemoveNetworks(ctx, simcloud.ClusterLabel+"="+cluster)
}
