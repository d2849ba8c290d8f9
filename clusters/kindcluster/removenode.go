package kindcluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/handover-sh/handover/clusters/engine"
	"github.com/handover-sh/handover/clusters/nodeaccess"
	"github.com/handover-sh/handover/waits"
)

// RemoveNode drains a node and removes it. A control plane is first taken
// out of the balancer, then its API server is stopped gracefully (clients
// get GOAWAY and reconnect through the balancer), then its etcd member is
// removed, so that the API stays available throughout.
func (c *Cluster) RemoveNode(ctx context.Context, name string) error {
	n, err := c.node(name)
	if err != nil {
		return err
	}
	role, err := n.Role()
	if err != nil {
		return err
	}
	if role != RoleControlPlane && role != RoleWorker {
		return noNode("%s is the cluster's %s, not a Kubernetes node", name, role)
	}
	peer, err := c.peerControlPlane(name, role)
	if err != nil {
		return err
	}
	c.Logger.V(0).Infof(" • Removing %s node %s ...", role, name)
	start := time.Now()
	done, err := book.leave(ctx, name, waits.Of(ctx, WaitNodeLeave))
	if err != nil {
		return fmt.Errorf("removing %s: %w", name, err)
	}
	defer done()
	// The Node's name, whatever the kubelet registered it under.
	nodeName, _, err := c.NodeName(ctx, name)
	if err != nil {
		return err
	}
	if _, err := run(ctx, peer, "kubectl", "drain", nodeName, "--ignore-daemonsets", "--delete-emptydir-data", "--force", "--timeout=120s"); err != nil {
		return err
	}
	if role == RoleControlPlane {
		if err := c.retireControlPlane(ctx, n); err != nil {
			return err
		}
	}
	if err := c.deleteNodeObject(ctx, nodeName); err != nil {
		return err
	}
	if err := engine.Remove(ctx, name); err != nil {
		return err
	}
	c.forget()
	if err := c.nodeGone(ctx, name); err != nil {
		return err
	}
	c.Logger.V(0).Infof(" ✓ Node %s removed (%s)", name, time.Since(start).Round(time.Second))
	return nil
}

// peerControlPlane is another control plane to run cluster commands from;
// it also refuses removals that would break the cluster.
func (c *Cluster) peerControlPlane(name, role string) (nodes.Node, error) {
	cps, err := c.ControlPlanes()
	if err != nil {
		return nil, err
	}
	var others []nodes.Node
	for _, cp := range cps {
		if cp.String() != name {
			others = append(others, cp)
		}
	}
	if len(others) == 0 {
		return nil, fmt.Errorf("%s is the last control plane: delete the cluster instead", name)
	}
	if role == RoleControlPlane {
		if lb, err := c.balancer(); err != nil || lb == nil {
			return nil, fmt.Errorf("%s serves the cluster endpoint of a single-balancer-less cluster: create clusters with 2 or more control planes to replace them", name)
		}
	}
	return others[0], nil
}

func (c *Cluster) retireControlPlane(ctx context.Context, n nodes.Node) error {
	if err := c.syncBalancer(ctx, n.String()); err != nil {
		return err
	}
	if err := stopStaticPod(ctx, n, "kube-apiserver"); err != nil {
		return err
	}
	if err := c.waitAPIServerDown(ctx, n); err != nil {
		return err
	}
	if err := handOffEtcdLeadership(ctx, n); err != nil {
		return fmt.Errorf("moving etcd leadership off %s: %w", n, err)
	}
	if _, err := run(ctx, n, "kubeadm", "reset", "phase", "remove-etcd-member", "--kubeconfig", "/etc/kubernetes/admin.conf"); err != nil {
		return err
	}
	for _, p := range []string{"etcd", "kube-controller-manager", "kube-scheduler"} {
		if err := stopStaticPod(ctx, n, p); err != nil {
			return err
		}
	}
	_, err := run(ctx, n, "systemctl", "stop", "kubelet")
	return err
}

// stopStaticPod moves a static pod's manifest away; the kubelet then stops
// the pod gracefully. One already moved away (a removal resumed, or a
// manager stopped first to hand its lease over) is no error.
func stopStaticPod(ctx context.Context, n nodes.Node, pod string) error {
	manifest := "/etc/kubernetes/manifests/" + pod + ".yaml"
	_, err := run(ctx, n, "sh", "-c", "test ! -e "+manifest+" || mv -f "+manifest+" /etc/kubernetes/"+pod+".yaml.removed")
	return err
}

// waitAPIServerDown waits until nothing accepts connections on the node's
// API server port, dialing from inside the node (no process per poll).
func (c *Cluster) waitAPIServerDown(ctx context.Context, n nodes.Node) error {
	err := wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, waits.Of(ctx, WaitAPIServerDown), true, func(ctx context.Context) (bool, error) {
		pid, err := c.PID(ctx, n.String())
		if err != nil {
			return true, nil // the container itself stopped
		}
		dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		conn, err := nodeaccess.Dial(dctx, pid, "tcp", "127.0.0.1:"+apiServerPort)
		if err != nil {
			return !errors.Is(err, nodeaccess.ErrNetns), nil
		}
		conn.Close()
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("API server on %s still answers 90s after its manifest was removed: %w", n, err)
	}
	return nil
}

func (c *Cluster) deleteNodeObject(ctx context.Context, name string) error {
	client, err := c.ClientContext(ctx)
	if err != nil {
		return err
	}
	err = client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("deleting Node %s: %w", name, err)
	}
	return nil
}
