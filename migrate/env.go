package migrate

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/timeline"
)

// Env is what steps act on.
type Env struct {
	Spec     Spec
	Cluster  Cluster
	Managers ManagerClient
	Client   kubernetes.Interface
	Logger   log.Logger
	Timeline *timeline.Writer
	// Poll is how often waits re-check (default 1s).
	Poll time.Duration
	// Force carries on past a controller running in two managers (the
	// rehearsal of a known-bad procedure), leaving the verdict to the
	// checks; otherwise the runner stops there.
	Force bool
}

// NewEnv is the Env of a kind cluster: its managers are reached from
// inside each node's network namespace, with connections kept open across
// polls.
func NewEnv(s Spec, c *kindcluster.Cluster, logger log.Logger, tl *timeline.Writer) (*Env, error) {
	client, err := c.Client()
	if err != nil {
		return nil, err
	}
	return &Env{Spec: s, Cluster: c, Managers: &managers.Clients{PID: c.PID}, Client: client, Logger: logger, Timeline: tl, Poll: s.Intervals.Of(IntervalPoll)}, nil
}

func (e *Env) event(ev timeline.Event) {
	ev.Source = "runner"
	ev.Procedure = e.Spec.Procedure
	if err := e.Timeline.Write(ev); err != nil {
		e.Logger.Warnf("timeline: %v", err)
	}
}

// poll re-checks until true, an error, or the context ends.
func (e *Env) poll(ctx context.Context, until func(context.Context, *Env) (bool, error)) error {
	t := time.NewTicker(e.Poll)
	defer t.Stop()
	var last error
	for {
		ok, err := until(ctx, e)
		if ok && err == nil {
			return nil
		}
		if err != nil && ctx.Err() == nil { // not an error of the cancellation itself
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				return last
			}
			return ctx.Err()
		case <-t.C:
		}
	}
}

// removeNode hands over main leases that would otherwise go with the
// migration lease, announces the removal on the timeline (the checks then expect
// the node's API server to go and its Node to be deleted) and removes it.
func (e *Env) removeNode(ctx context.Context, name string) error {
	if err := e.handMainLeasesOver(ctx, name); err != nil {
		return err
	}
	// Announced by its Node's name, which the checks meet in the node watch.
	node, _, err := e.Cluster.NodeName(ctx, name)
	if err != nil {
		return err
	}
	e.event(timeline.Event{Kind: timeline.NodeRemove, Node: node})
	return e.Cluster.RemoveNode(ctx, name)
}
