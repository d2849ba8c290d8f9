package observe

import (
	"context"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/timeline"
)

// pollHealth asks every manager on every control plane, in parallel, which
// controllers it has started.
func (ob *Observer) pollHealth(ctx context.Context) {
	ob.pollManagers(ctx, ob.o.HealthEvery, &managers.Clients{PID: ob.o.Cluster.PID}, ob.sample)
}

// pollManagers samples every manager on every control plane, in parallel,
// at each tick.
func (ob *Observer) pollManagers(ctx context.Context, d time.Duration, clients *managers.Clients,
	sample func(context.Context, *managers.Clients, string, string) timeline.Event) {
	every(ctx, d, func(ctx context.Context) {
		var wg sync.WaitGroup
		for _, n := range ob.controlPlanes() {
			for _, comp := range managers.Names() {
				wg.Add(1)
				go func(node, comp string) {
					defer wg.Done()
					if e := sample(ctx, clients, node, comp); ctx.Err() == nil {
						ob.emit(e)
					}
				}(n, comp)
			}
		}
		wg.Wait()
	})
}

// controlPlanes lists the control planes: from the engine's event-fed
// cache, so asking at every tick costs nothing, and a node that joins or
// goes is seen at the next tick.
func (ob *Observer) controlPlanes() []string {
	cps, err := ob.o.Cluster.ControlPlanes()
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(cps))
	for _, n := range cps {
		out = append(out, n.String())
	}
	return out
}

// healthTimeout: long enough that a loaded host's slow answer does not cost
// a new connection (and TLS handshake) at the next poll.
const healthTimeout = time.Second

func (ob *Observer) sample(ctx context.Context, clients *managers.Clients, node, comp string) timeline.Event {
	e := timeline.Event{Source: "health", Kind: timeline.Health, Manager: comp, Instance: node, Attrs: map[string]string{"up": "false"}}
	a, err := clients.Get(ctx, node, comp, "/healthz?verbose", healthTimeout)
	if err != nil {
		e.Attrs["error"] = err.Error()
		return e
	}
	e.Attrs["up"] = "true"
	e.Attrs["controllers"] = strings.Join(ob.watched(managers.Controllers(string(a.Body))), ",")
	return e
}

// watched picks the watched controllers out of the started ones.
func (ob *Observer) watched(started map[string]bool) []string {
	var out []string
	for _, c := range ob.o.Controllers {
		if _, ok := started[c]; ok {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}
