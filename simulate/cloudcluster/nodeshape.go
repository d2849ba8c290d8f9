package cloudcluster

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/handover-sh/handover/clusters/engine"
	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/waits"
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
//
// The interfaces come once every node's pod range has its route, as a VPC
// CNI attaches ENIs to nodes already running: EC2 routes to an instance by
// its ID only while it has one interface (amazon's oneInterface), so a node
// with two from the start would never get its route.
func attachSecondInterfaces(ctx context.Context, c *kindcluster.Cluster) error {
	if err := waitRoutes(ctx, c); err != nil {
		return err
	}
	name := interfaceNetwork(c.Name)
	err := engine.CreateNetwork(ctx, engine.NetworkSpec{Name: name, Subnet: interfaceSubnet(c.Name), Internal: true,
		Labels: map[string]string{cloudserver.ClusterLabel: c.Name}})
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
	return engine.RemoveNetworks(ctx, cloudserver.ClusterLabel+"="+cluster)
}

// waitRoutes waits until the cloud routes every Node's pod range.
func waitRoutes(ctx context.Context, c *kindcluster.Cluster) error {
	kube, err := c.Client()
	if err != nil {
		return err
	}
	cloud, err := Client(c.Name, "handover")
	if err != nil {
		return err
	}
	var missing []string
	limit := waits.Of(ctx, WaitNodeRoutes)
	err = wait.PollUntilContextTimeout(ctx, time.Second, limit, true, func(ctx context.Context) (bool, error) {
		nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		routes, err := cloud.Routes(ctx, "")
		if err != nil {
			return false, nil
		}
		routed := map[string]bool{}
		for _, r := range routes {
			routed[r.DestinationCIDR] = !r.Blackhole
		}
		missing = nil
		for _, n := range nodes.Items {
			if n.Spec.PodCIDR == "" || !routed[n.Spec.PodCIDR] {
				missing = append(missing, n.Name)
			}
		}
		return len(nodes.Items) > 0 && len(missing) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("before attaching second interfaces: the cloud routes no pod range of %v after %s", missing, limit)
	}
	return nil
}
