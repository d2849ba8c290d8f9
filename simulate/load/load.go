package load

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/waits"
)

var errNoCloud = errors.New("the cluster has no simulated cloud")

// Options say what cluster the load runs against.
type Options struct {
	Client kubernetes.Interface
	// REST, when set, is what Start builds the load's own client from,
	// limited above the profile's rate (Client, shared with the procedure,
	// runs at client-go's default 5 QPS); nil: the load uses Client.
	REST     *rest.Config
	Cluster  *kindcluster.Cluster
	Cloud    *api.Client // for instance terminations
	Timeline *timeline.Writer
	Logger   log.Logger
	// HandedOff blocks until the cloud controllers run in the
	// cloud-controller-manager (true) or ctx ends (false); nil: no join
	// waits for the hand-off.
	HandedOff func(ctx context.Context) bool
	// PullImage is an image in the cloud's registry the nodes pull
	// throughout ("": the cloud has no registry).
	PullImage string
	// PullCredentials are the kubelet flags that let a kubelet of a
	// version pull PullImage (nil: none needed), which a worker the load
	// joins starts with: its donor, a control plane, may be of another
	// version, whose flags it does not share.
	PullCredentials func(version string) map[string]string
}

// Summary counts what the load did.
type Summary struct {
	Profile                                              string
	ServicesCreated, ServicesUpdated, ServicesDeleted    int
	APIRequests, APIErrors, NodesJoined, NodesTerminated int
	// Terminated names the Nodes whose instances the load terminated:
	// the cluster's controllers are to delete their Nodes (AwaitGone).
	Terminated []string
	// Failures are the first of the load's own failed actions (Service
	// and node churn; API errors are only counted: the availability checks
	// judge the API).
	Failures []string
	Failed   int
	Delivered
}

// Err says whether the load did all it set out to: a rehearsal whose load
// failed did not rehearse what it claims.
func (s Summary) Err() error {
	if s.Failed == 0 {
		return nil
	}
	return fmt.Errorf("the load failed %d action(s), first: %s", s.Failed, s.Failures[0])
}

// Generator runs a profile until Stop.
type Generator struct {
	// grace bounds how long Stop lets a node action under way (and the
	// joined node's initialisation) finish; retryFor one action's retries.
	grace, retryFor time.Duration
	o               Options
	p               Profile
	c               kubernetes.Interface
	started         time.Time
	cancel          context.CancelFunc // stops the Service and API load, and waiting
	act             context.CancelFunc // cuts a node action short
	wg              sync.WaitGroup
	nodes           chan struct{} // closed when node churn is over
	mu              sync.Mutex
	sum             Summary
	// latencies of the API load's requests, for what it delivered
	latencies []time.Duration
}

// Prepare makes what the load needs before the procedure starts: the echo
// backends on the cluster's workers and the standing LoadBalancer
// Services, each with its load balancer, so traffic flows from the start.
func Prepare(ctx context.Context, o Options, p Profile) error {
	if p.Services == 0 && p.ChurnEvery == 0 && (p.PullEvery == 0 || o.PullImage == "") {
		return nil
	}
	workers, err := o.Cluster.Workers()
	if err != nil {
		return err
	}
	var names []string
	for _, w := range workers {
		// Labelled by its Node's name, which a cloud's kubelet may choose.
		name, _, err := o.Cluster.NodeName(ctx, w.String())
		if err != nil {
			return err
		}
		names = append(names, name)
	}
	o.Logger.V(0).Infof(" • Load %s: echo backends on %d worker(s), %d LoadBalancer Service(s) ...", p.Name, len(names), p.Services)
	if err := prepareBackends(ctx, o.Client, names); err != nil {
		return err
	}
	var svcs []string
	for i := 0; i < p.Services; i++ {
		svcs = append(svcs, standingName(i))
		if _, err := o.Client.CoreV1().Services(Namespace).Create(ctx, lbService(standingName(i)), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating Service %s/%s: %w", Namespace, standingName(i), err)
		}
	}
	return waitIngress(ctx, o.Client, svcs, waits.Of(ctx, WaitIngress))
}

// Start runs the profile's generators in the background.
func Start(ctx context.Context, o Options, p Profile) *Generator {
	actCtx, act := context.WithCancel(ctx)
	ctx, cancel := context.WithCancel(ctx)
	g := &Generator{o: o, p: p, started: time.Now(), cancel: cancel, act: act, nodes: make(chan struct{}), sum: Summary{Profile: p.Name},
		grace: waits.Of(ctx, WaitNodeActionGrace), retryFor: waits.Of(ctx, WaitActionRetry)}
	c, err := clientFor(o, p)
	if err != nil {
		g.fail("build the load's client", err)
		c = o.Client // the load still runs, throttled: the load check says by how much
	}
	g.c = c
	start := map[string]string{"profile": p.Name}
	if o.PullImage != "" && p.PullEvery > 0 {
		start[timeline.PullImage] = o.PullImage
		// What a node's pulls are owed: one a round, each done within the wait.
		start[timeline.PullEvery], start[timeline.PullLimit] = p.PullEvery.String(), waits.Of(ctx, WaitPull).String()
	}
	g.emit(timeline.Event{Kind: timeline.LoadStart, Attrs: start})
	for _, run := range []func(context.Context){g.churnServices, g.apiLoad, g.pullImages} {
		g.wg.Add(1)
		go func(run func(context.Context)) {
			defer g.wg.Done()
			run(ctx)
		}(run)
	}
	go func() {
		defer close(g.nodes)
		g.churnNodes(ctx, actCtx)
	}()
	return g
}

// Stop ends the load, letting a node action under way finish (within
// the load-node-action-grace wait; then the join is cancelled and its container removed),
// and returns what it did.
func (g *Generator) Stop() Summary {
	ran := time.Since(g.started)
	g.cancel()
	g.wg.Wait()
	select {
	case <-g.nodes:
	case <-time.After(g.grace):
		g.fail("finish a node action", fmt.Errorf("still under way %s after the procedure ended", g.grace))
		g.act()
		<-g.nodes
	}
	g.act()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sum.deliver(g.p, ran, g.latencies)
	g.emit(timeline.Event{Kind: timeline.LoadStop, Attrs: g.sum.attrs()})
	return g.sum
}

// took records one API request's latency.
func (g *Generator) took(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.latencies = append(g.latencies, d)
}

func (g *Generator) count(n *int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	*n++
}

// maxFailures kept verbatim in the summary.
const maxFailures = 20

func (g *Generator) fail(what string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sum.Failed++
	if len(g.sum.Failures) < maxFailures {
		g.sum.Failures = append(g.sum.Failures, fmt.Sprintf("%s %s: %v", time.Now().UTC().Format("15:04:05.000"), what, err))
	}
}

func (g *Generator) emit(e timeline.Event) {
	if g.o.Timeline == nil {
		return
	}
	e.Source = "load"
	if err := g.o.Timeline.Write(e); err != nil && g.o.Logger != nil {
		g.o.Logger.Warnf("load: %v", err)
	}
}

// String is an account of the load, each achieved number beside its
// target: a line, then each failed action.
func (s Summary) String() string {
	out := fmt.Sprintf("load %s over %s: API %.1f of %g QPS (%d requests, %d errors, latency p50 %s p99 %s); Service churn %d of %d actions (%d created, %d updated, %d deleted); %d of %d workers joined, %d of %d instances terminated; %d failed actions",
		s.Profile, s.Duration.Round(time.Second), s.APIQPS, s.APIQPSTarget, s.APIRequests, s.APIErrors,
		s.APILatencyP50.Round(time.Millisecond), s.APILatencyP99.Round(time.Millisecond), s.ChurnDone(), s.ChurnTarget,
		s.ServicesCreated, s.ServicesUpdated, s.ServicesDeleted, s.NodesJoined, s.NodeJoinsAsked, s.NodesTerminated, s.NodeTerminationsAsked, s.Failed)
	for _, f := range s.Failures {
		out += "\n   " + f
	}
	return out
}
