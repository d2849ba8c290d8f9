package load

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/waits"
)

// nodeChurnPause separates node joins.
const nodeChurnPause = 45 * time.Second

// terminateAfter is how long an initialised worker serves before its
// instance goes: the service controller adds an initialised node to the
// load balancers at once. Short, so the termination comes around the
// hand-off and its Node's deletion, some 80 s later, within the procedure.
const terminateAfter = 20 * time.Second

// uninitializedTaint is what a cloud-controller-manager removes once it has
// initialised a node of an external kubelet.
const uninitializedTaint = "node.cloudprovider.kubernetes.io/uninitialized"

// churnNodes joins workers during the run and terminates the instances of
// some of them in the cloud, as an autoscaler or a spot reclaim would: the
// Node goes NotReady and the cloud-node-lifecycle controller, in whichever
// manager runs it then, must delete it. With more than one join, the last
// waits for the hand-off, so both managers initialise a joined node.
// Waiting uses waitCtx; a join under way, and the termination of a
// worker it joined, finish on actCtx.
func (g *Generator) churnNodes(waitCtx, actCtx context.Context) {
	for i := 0; i < g.p.NodeJoins; i++ {
		afterHandOff := g.p.NodeJoins > 1 && i == g.p.NodeJoins-1 && g.o.HandedOff != nil
		if afterHandOff {
			if !g.o.HandedOff(waitCtx) && !g.handedOffAlready(actCtx) {
				return
			}
		} else if !sleep(waitCtx, nodeChurnPause) {
			return
		}
		version := g.workerVersion(actCtx)
		name, err := g.o.Cluster.AddNode(actCtx, kindcluster.AddNodeOptions{Role: kindcluster.RoleWorker, Kubernetes: version, KubeletArgs: g.pullCredentials(version)})
		if err != nil {
			if actCtx.Err() == nil {
				g.fail("join a worker", err)
			}
			continue
		}
		g.count(&g.sum.NodesJoined)
		node, _, err := g.o.Cluster.NodeName(actCtx, name)
		if err != nil {
			g.fail("initialise a joined worker", err)
			continue
		}
		if err := g.waitInitialised(actCtx, node); err != nil {
			g.fail("initialise a joined worker", err)
		}
		// A joined worker's termination is part of its action: it still
		// comes when the procedure ends first (a short one, as stop-start),
		// within the stop's grace.
		if i >= g.p.NodeTerminations || !sleep(actCtx, terminateAfter) {
			continue
		}
		g.terminate(actCtx, name, node)
	}
}

// handedOffAlready: the procedure ended (waiting is over) with the
// cloud-controller-manager holding the controllers. A procedure that went
// quicker than the pauses between node actions still gets its join after
// the hand-off, the one that shows the cloud-controller-manager initialising
// a new node; it runs within the stop's grace, as an action under way does.
func (g *Generator) handedOffAlready(actCtx context.Context) bool {
	ctx, cancel := context.WithTimeout(actCtx, handOffRecheck)
	defer cancel()
	return actCtx.Err() == nil && g.o.HandedOff(ctx)
}

// handOffRecheck bounds the look at the leases once the procedure ended.
const handOffRecheck = 5 * time.Second

// pullCredentials are the flags a joining worker of version pulls the
// cloud's registry with (nil: it pulls nothing, or needs none).
func (g *Generator) pullCredentials(version string) map[string]string {
	if g.o.PullImage == "" || g.o.PullCredentials == nil || version == "" {
		return nil
	}
	return g.o.PullCredentials(version)
}

// workerVersion is the kubelet version of the cluster's own workers: a new
// worker is of the version the workers are, whatever the control plane's
// (kubelets may lag the API servers; a newer one may not lead them).
func (g *Generator) workerVersion(ctx context.Context) string {
	nodes, err := g.c.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: backendLabel + "=true"})
	if err != nil || len(nodes.Items) == 0 {
		return ""
	}
	return nodes.Items[0].Status.NodeInfo.KubeletVersion
}

// waitInitialised waits for a joined Node's ProviderID and for the
// uninitialized taint to be gone.
func (g *Generator) waitInitialised(ctx context.Context, name string) error {
	var last *corev1.Node
	err := wait.PollUntilContextTimeout(ctx, time.Second, waits.Of(ctx, WaitNodeInitialised), true, func(ctx context.Context) (bool, error) {
		n, err := g.c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		last = n
		for _, t := range n.Spec.Taints {
			if t.Key == uninitializedTaint {
				return false, nil
			}
		}
		return n.Spec.ProviderID != "", nil
	})
	if err != nil && last != nil {
		return fmt.Errorf("the Node %s was not initialised in 2m (ProviderID %q, taints %v): %w", name, last.Spec.ProviderID, last.Spec.Taints, err)
	}
	return err
}

// terminate terminates instance (the node container) in the cloud; node
// is its Node's name, which the timeline and the wait for its deletion use.
func (g *Generator) terminate(ctx context.Context, name, node string) {
	if g.o.Cloud == nil {
		g.fail("terminate an instance", errNoCloud)
		return
	}
	g.emit(timeline.Event{Kind: timeline.NodeRemove, Node: node, Attrs: map[string]string{"instance": "terminated"},
		Message: "the load terminates its instance in the cloud"})
	g.o.Logger.V(0).Infof(" • Load: terminating instance %s in the cloud", name)
	// The cloud API may fail a call now and then, as clouds do: retry.
	err := wait.PollUntilContextTimeout(ctx, 2*time.Second, waits.Of(ctx, WaitTerminateRetry), true, func(ctx context.Context) (bool, error) {
		return g.o.Cloud.TerminateInstance(ctx, name) == nil, nil
	})
	if err != nil {
		g.fail("terminate an instance", fmt.Errorf("%s: %w", name, err))
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sum.NodesTerminated++
	g.sum.Terminated = append(g.sum.Terminated, node)
}

// sleep waits d or until ctx ends; false when it ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
