package observe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/timeline"
)

// pollHealth asks every manager on every control plane, in parallel, which
// controllers it has started.
func (ob *Observer) pollHealth(ctx context.Context) {
	if ob.o.Reach != nil {
		ob.pollManagers(ctx, ob.o.HealthEvery, ob.o.Reach.Health(), ob.sample)
	}
}

// pollManagers samples every manager the reach lists, in parallel, at each
// tick.
func (ob *Observer) pollManagers(ctx context.Context, d time.Duration, mr ManagerReach,
	sample func(context.Context, ManagerReach, Endpoint) timeline.Event) {
	every(ctx, d, func(ctx context.Context) {
		var wg sync.WaitGroup
		for _, ep := range mr.Endpoints() {
			wg.Add(1)
			go func(ep Endpoint) {
				defer wg.Done()
				if e := sample(ctx, mr, ep); ctx.Err() == nil && !ob.unknown(e) {
					ob.emit(e)
				}
			}(ep)
		}
		wg.Wait()
	})
}

// unknown says whether a sample says nothing of the manager: given
// managers only (handover's own are always reachable, and a timeout there
// has long been read as down), an error that is neither a refused
// connection nor one closed at once — how a manager that is down, or an SSH
// tunnel to it, answers.
func (ob *Observer) unknown(e timeline.Event) bool {
	return ob.given && e.Attrs["error"] != "" && e.Attrs["down"] != "true"
}

// down: the error is how a manager that does not run answers.
func down(err error) bool {
	return errors.Is(err, managers.ErrNotListening) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// failed records a sample's error, and whether it says the manager is down.
func failed(e timeline.Event, err error) timeline.Event {
	e.Attrs["error"] = err.Error()
	if down(err) {
		e.Attrs["down"] = "true"
	}
	return e
}

// healthTimeout: long enough that a loaded host's slow answer does not cost
// a new connection (and TLS handshake) at the next poll.
const healthTimeout = time.Second

func (ob *Observer) sample(ctx context.Context, mr ManagerReach, ep Endpoint) timeline.Event {
	e := timeline.Event{Source: "health", Kind: timeline.Health, Manager: ep.Manager, Instance: ep.Instance, Attrs: map[string]string{"up": "false"}}
	var body []byte
	err := mr.Stream(ctx, ep, "/healthz?verbose", healthTimeout, func(status int, r io.Reader) error {
		var err error
		body, err = io.ReadAll(r)
		if err == nil && status != http.StatusOK && status != http.StatusInternalServerError {
			// 500 is a failing check, still a list of the started ones;
			// anything else (401, 403, 404) says nothing of them.
			err = fmt.Errorf("HTTP %d", status)
		}
		return err
	})
	if err != nil {
		return failed(e, err)
	}
	e.Attrs["up"] = "true"
	e.Attrs["controllers"] = strings.Join(ob.watched(managers.Controllers(string(body))), ",")
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
