package checks

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// lbHealth is a load balancer's health check as the observers recorded it
// (lb.created, lb.changed) when the cloud's load balancer checks its
// backends as a cloud's does.
type lbHealth struct {
	interval, timeout  time.Duration
	healthy, unhealthy int
	target             string
	since              time.Time // when this check was first recorded
}

// inServiceBy is when a backend checked from since has passed healthy
// checks in a row, one every interval, the last given its timeout
// (HealthyThreshold): before it, a new load balancer that does not
// answer yet is ELB behaving as ELB.
func (h lbHealth) inServiceBy() time.Time {
	return h.since.Add(time.Duration(h.healthy)*h.interval + h.timeout)
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
		healthy, herr := strconv.Atoi(e.Attrs[timeline.HealthyThreshold])
		unhealthy, uerr := strconv.Atoi(e.Attrs[timeline.UnhealthyThreshold])
		if ierr != nil || terr != nil || herr != nil || uerr != nil {
			continue
		}
		h := lbHealth{interval: interval, timeout: timeout, healthy: healthy, unhealthy: unhealthy, target: e.Attrs[timeline.HealthCheck], since: e.Time}
		if before, ok := out[e.Attrs["service"]]; ok && before.same(h) {
			h.since = before.since
		}
		out[e.Attrs["service"]] = h
	}
	return out
}

// same: the same check, whenever recorded.
func (h lbHealth) same(o lbHealth) bool {
	h.since = o.since
	return h == o
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

// drainWindows are, for each Service's load balancer with a health
// check, the windows after the removal of a node it sent traffic to
// (by the node's InternalIPs and the backends its events list), each as
// long as that check takes to fail it. A list of backends cut short (a
// load balancer of many nodes) counts every removal.
type drainWindows struct {
	evs    []timeline.Event
	ips    map[string][]string // node → its InternalIPs, as ever recorded
	byLB   map[string][][2]time.Time
	health map[string]lbHealth
}

func newDrainWindows(evs []timeline.Event, health map[string]lbHealth) *drainWindows {
	d := &drainWindows{evs: evs, ips: map[string][]string{}, byLB: map[string][][2]time.Time{}, health: health}
	for _, e := range evs {
		if e.Kind == timeline.NodeAdded || e.Kind == timeline.NodeChanged {
			d.ips[e.Node] = append(d.ips[e.Node], internalIPs(e.Attrs["addresses"])...)
		}
	}
	return d
}

// of are service's windows.
func (d *drainWindows) of(service string) [][2]time.Time {
	if w, ok := d.byLB[service]; ok {
		return w
	}
	backends, all := map[string]bool{}, false
	for _, e := range d.evs {
		if (e.Kind == timeline.LBCreated || e.Kind == timeline.LBChanged) && e.Attrs["service"] == service {
			for _, b := range strings.Split(e.Attrs["backends"], ",") {
				backends[b] = true
				all = all || strings.HasPrefix(b, "…")
			}
		}
	}
	var w [][2]time.Time
	for _, e := range d.evs {
		if e.Kind == timeline.NodeRemove && (all || slices.ContainsFunc(d.ips[e.Node], func(ip string) bool { return backends[ip] })) {
			w = append(w, [2]time.Time{e.Time, e.Time.Add(d.health[service].drain())})
		}
	}
	d.byLB[service] = w
	return w
}
