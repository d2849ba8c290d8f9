package observe

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/timeline"
)

// Options say what to watch and how often.
type Options struct {
	// Reach gets past the API to the managers, the API servers and their
	// audit logs (nil: the API alone).
	Reach  Reach
	Client kubernetes.Interface
	REST   *rest.Config
	Cloud  Cloud // nil: no cloud audit, no instance check
	// Leases are the leases whose holders are recorded (kube-system).
	Leases []string
	// Controllers are the controllers whose activity health records.
	Controllers []string
	// ManagedFields attributes writes to Nodes and Services, and Events,
	// to managers from the objects' managedFields: evidence from the API
	// alone, for clusters whose managers and audit logs are out of reach.
	ManagedFields bool
	// ManagerPods records the managers' pods in kube-system: a manager
	// with none cannot have run a controller (needs pods in kube-system).
	ManagerPods bool
	// ManagerLogs follows each manager pod's log through the API (pods/log
	// in kube-system) from the start and records the errors it logs
	// (manager.error): a controller's failure that posts no Event, in the
	// provider's own words. It watches the pods as ManagerPods does.
	ManagerLogs bool
	// Rediscover, with ManagerPods and a Reach that grows (Growing), finds
	// the managers again whenever their pods change: one not sampled yet
	// (a cloud-controller-manager the procedure deploys) is sampled from
	// then on, and recorded as found (observer.managers).
	Rediscover func(context.Context) ([]ManagerURL, error)
	// NoLBProbes sends no requests through the load balancers.
	NoLBProbes bool
	// CloudOutOfReach declares that the cloud cannot be seen by design
	// (not merely that Cloud is nil): the checks only the cloud can
	// answer are skipped rather than failed.
	CloudOutOfReach bool
	// NoTrafficLabel marks LoadBalancer Services with nothing real behind
	// them (set to "true"; a scale rehearsal's, in front of simulated
	// pods): not probed. "" probes every one.
	NoTrafficLabel string
	// ResolveLB finds the address of a load balancer its Service names by
	// DNS name alone (an AWS ELB's), as a client's resolver would; nil
	// leaves such names to the host's resolver.
	ResolveLB func(ctx context.Context, hostname string) (string, error)
	Timeline  *timeline.Writer
	Logger    log.Logger
	// HealthEvery (default 500ms; also the audit logs), MetricsEvery
	// (default 1s: /metrics is hundreds of kilobytes, and health is the
	// finer witness), ProbeEvery (default 500ms: ten probes within the 5 s
	// an outage may last, half the requests of 250 ms).
	HealthEvery, MetricsEvery, ProbeEvery time.Duration
}

// Observer runs the watchers until Stop.
type Observer struct {
	o       Options
	started time.Time
	// given: the managers were given rather than found on the nodes, so an
	// answer that is neither a reply nor a sign of a manager down (a
	// refusal to this identity, a timeout, a certificate not trusted) is
	// no sample: the evidence check then sees the hole.
	given  bool
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// synced closes once the initial lists of Nodes and leases are
	// recorded.
	synced chan struct{}
}

// WaitSynced waits until the initial lists of Nodes and leases are on the
// timeline, so that what a procedure started next changes is recorded as
// a change (the node checks' "before" is the state before its first step).
func (ob *Observer) WaitSynced(ctx context.Context, timeout time.Duration) error {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-ob.synced:
		return nil
	case <-t.C:
		return fmt.Errorf("the node and lease watches had not listed within %s", timeout)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Start records observer.start and starts every watcher.
func Start(ctx context.Context, o Options) *Observer {
	if o.HealthEvery == 0 {
		o.HealthEvery = 500 * time.Millisecond
	}
	if o.MetricsEvery == 0 {
		o.MetricsEvery = time.Second
	}
	if o.ProbeEvery == 0 {
		o.ProbeEvery = 500 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(ctx)
	ob := &Observer{o: o, cancel: cancel, started: time.Now(), synced: make(chan struct{})}
	if o.Reach != nil {
		_, ob.given = o.Reach.Fixed()
	}
	ob.emit(timeline.Event{Kind: timeline.ObserverStart, Source: "observer", Attrs: ob.declare()})
	for _, run := range []func(context.Context){ob.watchKube, ob.pollHealth, ob.probeAPI, ob.probeLBs, ob.followCloud, ob.followAudit, ob.pollMetrics} {
		ob.wg.Add(1)
		go func(run func(context.Context)) {
			defer ob.wg.Done()
			run(ctx)
		}(run)
	}
	return ob
}

// declare says on observer.start how often the pollers sample and, where
// the reach fixes them, which managers and API servers they owe samples of.
func (ob *Observer) declare() map[string]string {
	o := ob.o
	attrs := map[string]string{timeline.HealthEvery: o.HealthEvery.String(), timeline.MetricsEvery: o.MetricsEvery.String(),
		timeline.ProbeEvery: o.ProbeEvery.String()}
	if o.CloudOutOfReach {
		attrs[timeline.CloudOutOfReach] = "true"
	}
	var eps []Endpoint
	fixed := o.Reach == nil
	if !fixed {
		eps, fixed = o.Reach.Fixed()
		if _, why := o.Reach.Metrics(); why != "" {
			attrs[timeline.MetricsOutOfReach] = why
		}
	}
	if fixed {
		names := make([]string, 0, len(eps))
		for _, ep := range eps {
			names = append(names, ep.Manager+"@"+ep.Instance)
		}
		sort.Strings(names)
		attrs[timeline.FixedManagers] = strings.Join(names, ",")
	}
	return attrs
}

// Stop ends the watchers, records the end snapshot and observer.stop.
func (ob *Observer) Stop() {
	ob.cancel()
	ob.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ob.snapshot(ctx)
	ob.emit(timeline.Event{Kind: timeline.ObserverStop, Source: "observer"})
}

func (ob *Observer) emit(e timeline.Event) {
	if err := ob.o.Timeline.Write(e); err != nil && ob.o.Logger != nil {
		ob.o.Logger.Warnf("observer: %v", err)
	}
}

// every runs f now and then at each multiple of d on the wall clock until
// ctx ends; a tick f overruns is skipped. All pollers tick together: the
// process wakes twice a second, not at fifty scattered moments, each of
// which costs the runtime's monitor and the scheduler more than the poll.
func every(ctx context.Context, d time.Duration, f func(context.Context)) {
	for {
		f(ctx)
		now := time.Now()
		t := time.NewTimer(now.Truncate(d).Add(d).Sub(now))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}
