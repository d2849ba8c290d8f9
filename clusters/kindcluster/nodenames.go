package kindcluster

import (
	"context"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/handover-sh/handover/clusters/engine"
)

// kind names a Node after its container; a cloud's kubelet may name it
// otherwise (the aws provider's by the instance's private DNS name, as on
// EC2). A node container and its Node share the node's address, which is
// how one finds the other. A pair once found is remembered: a removed
// node's container and Node still map after one of them is gone.

// nodeNames remembers container ↔ Node pairs found.
type nodeNames struct {
	mu     sync.Mutex
	toNode map[string]string
	toCtr  map[string]string
}

func (m *nodeNames) remember(pairs map[string]string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.toNode == nil {
		m.toNode, m.toCtr = map[string]string{}, map[string]string{}
	}
	for c, n := range pairs {
		m.toNode[c], m.toCtr[n] = n, c
	}
}

func (m *nodeNames) node(container string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.toNode[container]
	return n, ok
}

func (m *nodeNames) container(node string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.toCtr[node]
	return c, ok
}

// MatchNodes pairs running node containers with Nodes by internal address:
// container name → Node name.
func MatchNodes(cs []engine.Container, ns []corev1.Node) map[string]string {
	byIP := map[string]string{}
	for _, n := range ns {
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				byIP[a.Address] = n.Name
			}
		}
	}
	out := map[string]string{}
	for _, c := range cs {
		if n, ok := byIP[c.IPv4]; ok && c.IPv4 != "" && c.State == "running" {
			out[c.Name] = n
		}
	}
	return out
}

// match lists containers and Nodes and remembers every pair.
func (c *Cluster) match(ctx context.Context) error {
	cs, err := c.containers(ctx)
	if err != nil {
		return err
	}
	client, err := c.Client()
	if err != nil {
		return err
	}
	ns, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing Nodes: %w", err)
	}
	c.names.remember(MatchNodes(cs, ns.Items))
	return nil
}

// NodeName is the name of the Node a node container registered: its own
// unless the cluster's kubelets name Nodes otherwise. A container whose
// Node is not (or no longer) registered keeps its own name, with found
// false.
func (c *Cluster) NodeName(ctx context.Context, container string) (name string, found bool, err error) {
	if n, ok := c.names.node(container); ok {
		return n, true, nil
	}
	if err := c.match(ctx); err != nil {
		return container, false, err
	}
	if n, ok := c.names.node(container); ok {
		return n, true, nil
	}
	return container, false, nil
}

// ContainerOf is the node container of a Node (the Node's own name when
// none has its address).
func (c *Cluster) ContainerOf(ctx context.Context, node string) (string, error) {
	if ctr, ok := c.names.container(node); ok {
		return ctr, nil
	}
	if err := c.match(ctx); err != nil {
		return node, err
	}
	if ctr, ok := c.names.container(node); ok {
		return ctr, nil
	}
	return node, nil
}

// namesNodesByMetadata: a node's kubelet runs under a name other than its
// container's (kubeadm wrote --hostname-override, as it does when
// nodeRegistration names the node otherwise than its hostname), so a node
// joining beside it takes its name as it did, from the instance metadata.
func namesNodesByMetadata(ctx context.Context, n nodes.Node) (bool, error) {
	env, err := run(ctx, n, "cat", "/var/lib/kubelet/kubeadm-flags.env")
	if err != nil {
		return false, err
	}
	return strings.Contains(env, "--hostname-override="), nil
}

// NodeNameFromMetadata is the kubeadm node name that a node's bootstrap
// fills in from its instance's metadata before kubeadm runs (cluster-api's
// AWS templates name nodes so: the private DNS name).
const NodeNameFromMetadata = "{{ ds.meta_data.local_hostname }}"
