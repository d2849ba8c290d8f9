package faults

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/timeline"
)

// Options say where faults go.
type Options struct {
	Cluster  *kindcluster.Cluster
	Client   kubernetes.Interface
	Cloud    *api.Client
	Timeline *timeline.Writer
	Logger   log.Logger
	// LeaderName is the migration lease.
	LeaderName string
}

// Injector waits for its moment, injects the fault once, and reports.
type Injector struct {
	o      Options
	s      Spec
	cancel context.CancelFunc
	done   chan struct{}
	// ended is closed when the procedure has ended (ProcedureEnded).
	ended     chan struct{}
	endOnce   sync.Once
	aftermath time.Duration
	mu        sync.Mutex
	fired     bool
	err       error
}

// Start arms the fault.
func Start(ctx context.Context, o Options, s Spec) *Injector {
	ctx, cancel := context.WithCancel(ctx)
	in := &Injector{o: o, s: s, cancel: cancel, done: make(chan struct{}), ended: make(chan struct{}), aftermath: Aftermath}
	stepStarted := make(chan struct{})
	if s.Step != "" {
		var once sync.Once
		o.Timeline.Subscribe(func(e timeline.Event) {
			if e.Kind == timeline.StepStart && e.Step == s.Step {
				once.Do(func() { close(stepStarted) })
			}
		})
	}
	go func() {
		defer close(in.done)
		if !s.Active() {
			return
		}
		var err error
		switch s.Step {
		case "":
			if err = in.waitHandOff(ctx); err != nil {
				return
			}
		case AfterProcedure:
			select {
			case <-ctx.Done():
				return
			case <-in.ended:
			}
		default:
			select {
			case <-ctx.Done():
				return
			case <-stepStarted:
			}
		}
		if !sleep(ctx, s.Delay) {
			return
		}
		in.mu.Lock()
		in.fired = true
		in.mu.Unlock()
		err = in.inject(ctx)
		in.mu.Lock()
		in.err = err
		in.mu.Unlock()
	}()
	return in
}

// ProcedureEnded says the procedure is over. A fault scheduled after it
// fires now, and ProcedureEnded returns once it has and its Aftermath has
// been observed; for any other fault it returns at once.
func (in *Injector) ProcedureEnded(ctx context.Context) {
	in.endOnce.Do(func() { close(in.ended) })
	if !in.s.Active() || in.s.Step != AfterProcedure {
		return
	}
	select {
	case <-ctx.Done():
		return
	case <-in.done:
	}
	in.o.Logger.V(0).Infof(" • Fault %s: observing its aftermath for %s", in.s.Name, in.aftermath)
	sleep(ctx, in.aftermath)
}

// Stop disarms the fault (a fault under way is cut short and undone) and
// says whether it happened as planned.
func (in *Injector) Stop() error {
	in.cancel()
	<-in.done
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.s.Active() && !in.fired {
		return fmt.Errorf("fault %s never fired: its moment did not come before the procedure ended", in.s)
	}
	return in.err
}

func (in *Injector) inject(ctx context.Context) error {
	var target string
	var err error
	switch in.s.Name {
	case LeaderKill:
		target, err = in.leaderKill(ctx)
	case CPNodeStop:
		target, err = in.nodeStop(ctx)
	case CloudThrottle:
		target, err = in.cloudThrottle(ctx)
	case CloudOutage:
		target, err = in.cloudOutage(ctx)
	case CloudLag:
		target, err = in.cloudLag(ctx)
	case ServiceDelete:
		target, err = in.serviceDelete(ctx)
	case NodeReregister:
		target, err = in.nodeReregister(ctx)
	case CCMDeniedRoutes:
		target, err = in.ccmDeniedRoutes(ctx)
	case CCMOtherRegion:
		target, err = in.ccmOtherRegion(ctx)
	default:
		err = fmt.Errorf("unknown fault %q", in.s.Name)
	}
	end := timeline.Event{Kind: timeline.FaultEnd, Attrs: map[string]string{"fault": in.s.Name, "target": target}}
	if err != nil {
		end.Attrs["error"] = err.Error()
		in.o.Logger.Warnf("fault %s: %v", in.s.Name, err)
	}
	in.emit(end)
	return err
}

// waitHandOff waits until both managers have a leader and the migration
// lease is held: the moment a fault hurts most.
func (in *Injector) waitHandOff(ctx context.Context) error {
	for {
		ready := true
		for _, l := range []string{in.o.LeaderName, "kube-controller-manager", "cloud-controller-manager"} {
			if h, _ := in.holder(ctx, l); h == "" {
				ready = false
			}
		}
		if ready {
			return nil
		}
		if !sleep(ctx, time.Second) {
			return ctx.Err()
		}
	}
}

func (in *Injector) holder(ctx context.Context, lease string) (string, error) {
	l, err := in.o.Client.CoordinationV1().Leases("kube-system").Get(ctx, lease, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	if l.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *l.Spec.HolderIdentity, nil
}

// started announces the fault on its target.
func (in *Injector) started(target, message string) {
	in.o.Logger.V(0).Infof(" • Fault %s: %s", in.s.Name, message)
	in.emit(timeline.Event{Kind: timeline.FaultStart, Message: message, Attrs: map[string]string{"fault": in.s.Name, "target": target}})
}

func (in *Injector) emit(e timeline.Event) {
	e.Source = "faults"
	if err := in.o.Timeline.Write(e); err != nil {
		in.o.Logger.Warnf("faults: %v", err)
	}
}

var errNoCloud = errors.New("the cluster has no simulated cloud")

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
