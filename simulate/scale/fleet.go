package scale

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/timeline"
)

// Options are what the fleet works with.
type Options struct {
	Client kubernetes.Interface
	// CloudURL is the simulated cloud's; the fleet's own calls there are
	// handover's (virtual instances, the throttle), the simulated kubelets'
	// are each its own node's.
	CloudURL string
	// CloudToken is the cloud's credential for the cluster, the nodes'
	// (the simulated kubelets' calls); CloudAdminToken the host's (the
	// fleet's own calls, which are admin calls).
	CloudToken, CloudAdminToken string
	// CloudAs is the provider the cloud names things as (its
	// cloud-config's profile): simulated in-tree kubelets form
	// ProviderIDs by it, as real ones do by their provider's name.
	CloudAs behaviour.Behaviour
	// Cluster, StateDir and Kubeconfig are where kwok runs: the cluster's
	// name, a directory of its own, and an admin kubeconfig reachable from
	// the kind network.
	Cluster, StateDir, Kubeconfig string
	// External says whether a node joining now registers as an external
	// kubelet does (the rehearsal: as the newest control plane's).
	External func(ctx context.Context) (bool, error)
	// KubeletVersion is what the simulated kubelets report.
	KubeletVersion string
	Timeline       *timeline.Writer
	Logger         log.Logger
}

// Summary counts what the fleet did.
type Summary struct {
	// Asked is how many nodes the profile registers before the procedure
	// (0: there was no fleet).
	Asked                      int
	Registered, Joined, Failed int
	// Failures are the first of the fleet's failed joins.
	Failures []string
}

// Err says whether every node the fleet set out to bring up came up.
func (s Summary) Err() error {
	if s.Failed == 0 {
		return nil
	}
	return fmt.Errorf("the simulated fleet failed %d join(s), first: %s", s.Failed, s.Failures[0])
}

// String is an account of the fleet ("" when there was none).
func (s Summary) String() string {
	if s.Asked == 0 {
		return ""
	}
	return fmt.Sprintf("simulated fleet: %d of %d nodes registered before the procedure, %d joined during it, %d failed", s.Registered, s.Asked, s.Joined, s.Failed)
}

// Fleet is a running simulated fleet.
type Fleet struct {
	o     Options
	p     Profile
	admin *api.Client
	mu    sync.Mutex
	sum   Summary
	next  int
	stop  context.CancelFunc
	done  chan struct{}
}

// registerWorkers bounds the joins under way at once while the fleet
// comes up: enough to register hundreds of nodes in a minute or two, few
// enough not to swamp the API server a 2-core machine runs.
const registerWorkers = 8

// Prepare brings the fleet up before the procedure: the cloud's throttle,
// kwok, the nodes, the Services and their endpoints, and waits until every
// node is initialised and every Service has its load balancer.
func Prepare(ctx context.Context, o Options, p Profile) (*Fleet, error) {
	admin := o.cloudClient("handover-scale")
	admin.Token = o.CloudAdminToken
	f := &Fleet{o: o, p: p, admin: admin, sum: Summary{Asked: p.Nodes}}
	if p.None() {
		return f, nil
	}
	f.emit(timeline.Event{Kind: timeline.ScaleStart, Attrs: map[string]string{"nodes": strconv.Itoa(p.Nodes),
		"services": strconv.Itoa(p.Services), "joinEvery": p.JoinEvery.String(), "throttleQPS": strconv.FormatFloat(p.ThrottleQPS, 'g', -1, 64)}})
	if p.ThrottleQPS > 0 {
		if err := f.admin.SetFaults(ctx, api.Faults{ThrottleQPS: p.ThrottleQPS}); err != nil {
			return nil, fmt.Errorf("throttling the cloud: %w", err)
		}
		f.logf("The cloud now answers each caller at most %g times a second, until the cluster goes", p.ThrottleQPS)
	}
	f.logf("Starting kwok for %d simulated nodes ...", p.Nodes)
	if err := startKwok(ctx, o.Cluster, o.StateDir, o.Kubeconfig); err != nil {
		return nil, err
	}
	if err := keepDaemonSetsOff(ctx, o.Client); err != nil {
		return nil, err
	}
	start := time.Now()
	f.registerAll(ctx)
	if err := f.sum.Err(); err != nil {
		return nil, err
	}
	f.logf("Registered %d simulated nodes in %s; creating %d LoadBalancer Services on them ...", p.Nodes, time.Since(start).Round(time.Second), p.Services)
	if err := cloudserver.MakeLoadBalancersVirtual(ctx, f.admin, Namespace); err != nil {
		return nil, err
	}
	if err := createServices(ctx, o.Client, p.Services); err != nil {
		return nil, err
	}
	if err := waitReady(ctx, o.Client, p, f.logf); err != nil {
		return nil, err
	}
	return f, nil
}

// registerAll registers the profile's nodes, a few at a time.
func (f *Fleet) registerAll(ctx context.Context) {
	names := make(chan string)
	var wg sync.WaitGroup
	for range registerWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				f.joinCounted(ctx, name, "prepare", &f.sum.Registered)
			}
		}()
	}
	for range f.p.Nodes {
		names <- f.nextName()
	}
	close(names)
	wg.Wait()
}

// Start joins a node every JoinEvery until Stop (or ctx ends: a join under
// way then stops too).
func (f *Fleet) Start(ctx context.Context) {
	ticks, stop := context.WithCancel(ctx)
	f.stop, f.done = stop, make(chan struct{})
	go func() {
		defer close(f.done)
		if f.p.None() || f.p.JoinEvery == 0 {
			return
		}
		t := time.NewTicker(f.p.JoinEvery)
		defer t.Stop()
		for {
			select {
			case <-ticks.Done():
				return
			case <-t.C:
			}
			// A join under way when Stop comes finishes: a node half
			// registered says nothing.
			f.joinCounted(ctx, f.nextName(), "procedure", &f.sum.Joined)
			if err := keepDaemonSetsOff(ctx, f.o.Client); err != nil && ctx.Err() == nil {
				f.o.Logger.Warnf("scale: %v", err)
			}
		}
	}()
}

// Stop ends the joins and says what the fleet did. kwok keeps the nodes
// Ready, and the cloud stays throttled, until the cluster goes (a kept
// cluster keeps its fleet).
func (f *Fleet) Stop() Summary {
	if f.stop != nil {
		f.stop()
		<-f.done
		f.stop = nil
	}
	f.mu.Lock()
	sum := f.sum
	f.mu.Unlock()
	if !f.p.None() {
		f.emit(timeline.Event{Kind: timeline.ScaleStop, Attrs: map[string]string{"registered": strconv.Itoa(sum.Registered),
			"joined": strconv.Itoa(sum.Joined), "failed": strconv.Itoa(sum.Failed)}})
	}
	return sum
}

func (f *Fleet) nextName() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next++
	return nodeName(f.next)
}

// nodeName is the i-th simulated node's (from 1).
func nodeName(i int) string { return fmt.Sprintf("sim-node-%04d", i) }

// joinCounted joins one node, counting it in done or as a failure.
func (f *Fleet) joinCounted(ctx context.Context, name, phase string, done *int) {
	err := f.join(ctx, name, phase)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		*done++
		return
	}
	if errors.Is(err, context.Canceled) {
		return
	}
	f.sum.Failed++
	if len(f.sum.Failures) < maxFailures {
		f.sum.Failures = append(f.sum.Failures, fmt.Sprintf("%s %s: %v", time.Now().UTC().Format("15:04:05.000"), name, err))
	}
}

// maxFailures kept verbatim in the summary.
const maxFailures = 20

func (f *Fleet) logf(format string, args ...any) {
	if f.o.Logger != nil {
		f.o.Logger.V(0).Infof(" • "+format, args...)
	}
}

func (f *Fleet) emit(e timeline.Event) {
	if f.o.Timeline == nil {
		return
	}
	e.Source = "scale"
	if err := f.o.Timeline.Write(e); err != nil && f.o.Logger != nil {
		f.o.Logger.Warnf("scale: %v", err)
	}
}

// cloudClient calls the simulated cloud as component.
func (o Options) cloudClient(component string) *api.Client {
	c := api.NewClient(o.CloudURL, component)
	c.Token = o.CloudToken
	return c
}
