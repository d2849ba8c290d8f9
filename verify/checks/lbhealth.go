package checks

import (
	"strconv"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// lbHealth is a load balancer's health check as the observers recorded it
// (lb.created, lb.changed) when the cloud's load balancer checks its
// backends as a cloud's does.
type lbHealth struct {
	interval, timeout time.Duration
	unhealthy         int
}

// drain is how long the load balancer keeps sending to a backend that
// died: until it failed unhealthy checks in a row, one every interval,
// the last given its timeout (ELB's "UnhealthyThreshold: the number of
// consecutive health check failures required before moving the instance
// to the Unhealthy state").
func (h lbHealth) drain() time.Duration {
	return time.Duration(h.unhealthy)*h.interval + h.timeout
}

// lbHealthChecks are the health checks recorded for each Service's load
// balancer, the last one recorded; a Service whose load balancer records
// none is not listed.
func lbHealthChecks(evs []timeline.Event) map[string]lbHealth {
	out := map[string]lbHealth{}
	for _, e := range evs {
		if e.Kind != timeline.LBCreated && e.Kind != timeline.LBChanged {
			continue
		}
		interval, ierr := time.ParseDuration(e.Attrs[timeline.HealthInterval])
		timeout, terr := time.ParseDuration(e.Attrs[timeline.HealthTimeout])
		unhealthy, uerr := strconv.Atoi(e.Attrs[timeline.UnhealthyThreshold])
		if ierr != nil || terr != nil || uerr != nil {
			continue
		}
		out[e.Attrs["service"]] = lbHealth{interval: interval, timeout: timeout, unhealthy: unhealthy}
	}
	return out
}

// excusedAttr marks a failed probe the share does not count: it failed
// while a backend that died was still in service by its load balancer's
// own health check. Its outage still counts.
const excusedAttr = "excused"

// excuse is e marked excused (a copy: events share their attributes).
func excuse(e timeline.Event) timeline.Event {
	attrs := make(map[string]string, len(e.Attrs)+1)
	for k, v := range e.Attrs {
		attrs[k] = v
	}
	attrs[excusedAttr] = "true"
	e.Attrs = attrs
	return e
}

// windowsByLength are the removal windows of each length asked for,
// made once.
type windowsByLength map[time.Duration][][2]time.Time

func (w windowsByLength) of(evs []timeline.Event, d time.Duration) [][2]time.Time {
	if _, ok := w[d]; !ok {
		w[d] = removalWindows(evs, d)
	}
	return w[d]
}
