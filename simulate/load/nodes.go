package load

import (
	"context"
	"time"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/verify/timeline"
)

// nodeChurnPause separates node actions: long enough for a joined node to
// be initialised and carry traffic before its instance goes.
const nodeChurnPause = 45 * time.Second

// churnNodes joins workers during the run and terminates the instances of
// some of them in the cloud, as an autoscaler or a spot reclaim would: the
// Node then goes NotReady and the cloud-node-lifecycle controller, in
// whichever manager runs it then, must delete it.
func (g *Generator) churnNodes(ctx context.Context) {
	for i := 0; i < g.p.NodeJoins; i++ {
		if !sleep(ctx, nodeChurnPause) {
			return
		}
		name, err := g.o.Cluster.AddNode(ctx, kindcluster.AddNodeOptions{Role: kindcluster.RoleWorker})
		if err != nil {
			if ctx.Err() == nil {
				g.fail("join a worker", err)
			}
			continue
		}
		g.count(&g.sum.NodesJoined)
		if i >= g.p.NodeTerminations || !sleep(ctx, nodeChurnPause) {
			continue
		}
		g.terminate(ctx, name)
	}
}

func (g *Generator) terminate(ctx context.Context, name string) {
	if g.o.Cloud == nil {
		g.fail("terminate an instance", errNoCloud)
		return
	}
	g.emit(timeline.Event{Kind: timeline.NodeRemove, Node: name, Message: "the load terminates its instance in the cloud"})
	g.o.Logger.V(0).Infof(" • Load: terminating instance %s in the cloud", name)
	if err := g.o.Cloud.TerminateInstance(ctx, name); err != nil {
		g.fail("terminate an instance", err)
		return
	}
	g.count(&g.sum.NodesTerminated)
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
