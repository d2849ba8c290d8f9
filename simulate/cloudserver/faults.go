package cloudserver

import (
	"math/rand"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// injector decides, per call, whether a fault knob makes it fail.
type injector struct {
	mu       sync.Mutex
	faults   api.Faults
	limiters map[string]*rate.Limiter
	rand     *rand.Rand
}

func newInjector(f api.Faults, seed int64) *injector {
	return &injector{faults: f, limiters: map[string]*rate.Limiter{}, rand: rand.New(rand.NewSource(seed))}
}

func (in *injector) set(f api.Faults) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.faults = f
	in.limiters = map[string]*rate.Limiter{}
}

func (in *injector) get() api.Faults {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.faults
}

// throttled says whose budget a call spends when the cloud is throttled,
// by the caller's component: the account's limit binds the cluster's
// callers, each manager its own; each kubelet is limited on its own (it
// asks about its own machine, which clouds answer from the instance's
// metadata service rather than the account's API); handover's own callers
// — the network agents reading the route table as the fabric would, the
// observers — are not held to it (ok false).
var throttled = []struct {
	prefix  string
	perNode bool
	exempt  bool
}{
	{prefix: "handover", exempt: true},
	{prefix: "kubelet", perNode: true},
}

func budget(component, node string) (key string, ok bool) {
	for _, t := range throttled {
		switch {
		case !strings.HasPrefix(component, t.prefix):
		case t.exempt:
			return "", false
		case t.perNode:
			return component + "@" + node, true
		}
	}
	return component, true
}

// decide returns the added latency and, if the call must fail, its status
// and the knob responsible.
func (in *injector) decide(now time.Time, op, component, node string) (time.Duration, int, string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	f := in.faults
	for _, w := range f.Outages {
		if !now.Before(w.Start) && now.Before(w.End) {
			return f.Latency.Duration, http.StatusServiceUnavailable, "outage"
		}
	}
	if denied := f.Deny[component]; slices.Contains(denied, op) || slices.Contains(denied, "*") {
		return f.Latency.Duration, http.StatusForbidden, "deny"
	}
	if key, ok := budget(component, node); f.ThrottleQPS > 0 && ok {
		l := in.limiters[key]
		if l == nil {
			l = rate.NewLimiter(rate.Limit(f.ThrottleQPS), max(1, int(f.ThrottleQPS)))
			in.limiters[key] = l
		}
		if !l.AllowN(now, 1) {
			return f.Latency.Duration, http.StatusTooManyRequests, "throttle"
		}
	}
	p, ok := f.ErrorRate[op]
	if !ok {
		p = f.ErrorRate["*"]
	}
	if p > 0 && in.rand.Float64() < p {
		return f.Latency.Duration, http.StatusInternalServerError, "error-rate"
	}
	return f.Latency.Duration, 0, ""
}
