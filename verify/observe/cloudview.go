package observe

import (
	"context"
	"strconv"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// Cloud is what the observers read from the cloud the managers call, in
// the observers' own terms: the simulated cloud's adapter (rehearsal) and
// a real provider's answer the same, so verify imports no provider.
type Cloud interface {
	// CallsAfter is the cloud's record of calls after its first n, and the
	// position to ask from next (from past the end: where the end is).
	CallsAfter(ctx context.Context, n int) ([]CloudCall, int, error)
	// LoadBalancers are the cloud's load balancers now.
	LoadBalancers(ctx context.Context) ([]CloudLB, error)
	// HasInstance says whether the cloud still has the named instance.
	HasInstance(ctx context.Context, name string) (bool, error)
	// Routes are the cloud's route table now.
	Routes(ctx context.Context) ([]CloudRoute, error)
}

// CloudRoute sends a pod CIDR to an instance.
type CloudRoute struct {
	Destination, Target string
	Blackhole           bool
}

// CloudCall is one call a component made to the cloud.
type CloudCall struct {
	Time time.Time
	// Component is the caller (kube-controller-manager,
	// cloud-controller-manager, …); Controller its loop, where known.
	Component, Controller string
	Operation, Resource   string
	Node                  string // the node the call was about, if any
	Status                int    // HTTP-like status of the answer
	Fault                 string // the cloud's knob that failed it, if one did
}

// CloudLB is one load balancer of the cloud.
type CloudLB struct {
	Name, IP string
	Service  string   // namespace/name of the Service it stands for
	Backends []string // the addresses it sends traffic to
	// Health is how it checks its backends when the cloud's load balancer
	// does as a cloud's does (a classic ELB's); nil otherwise.
	Health *LBHealth
	// Dropped are the backends' address:port pairs the cloud's network
	// drops its traffic to (a security group with no rule letting it in).
	Dropped []string
	// Draining is what it does with a leaving backend's connections, as
	// timeline.LBDraining says it ("": the cloud says nothing of it).
	Draining string
}

// LBHealth is a load balancer's health check as configured: a backend is
// in service after Healthy passes in a row, out after Unhealthy
// failures, one check every Interval given Timeout.
type LBHealth struct {
	Target             string // PROTOCOL:PORT[/PATH]
	Interval, Timeout  time.Duration
	Healthy, Unhealthy int
}

// attrs are h as a load-balancer event's attributes (timeline.HealthCheck
// and the rest; checks/availability.go reads them).
func (h *LBHealth) attrs(into map[string]string) {
	if h == nil {
		return
	}
	into[timeline.HealthCheck] = h.Target
	into[timeline.HealthInterval] = h.Interval.String()
	into[timeline.HealthTimeout] = h.Timeout.String()
	into[timeline.HealthyThreshold] = strconv.Itoa(h.Healthy)
	into[timeline.UnhealthyThreshold] = strconv.Itoa(h.Unhealthy)
}
