package checks

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// CheckAPIAvailability: the API through the control-plane endpoint and per
// API server. Probes of an API server whose node the procedure removes are
// not counted from the removal on.
func CheckAPIAvailability(evs []timeline.Event, cfg Config) []Result {
	return availability(evs, cfg, "api", APIAvailability)
}

// CheckLBAvailability: requests through every LoadBalancer IP, from the
// moment the load balancer is in service (it answered for lbInService
// without fail) until its Service's deletion was asked for. Failures within
// lbDrain of an announced instance termination are the load balancer's own
// health checks at work, not an outage. A load balancer that recorded a
// cloud's health check (a classic ELB's) keeps sending to a backend whose
// node was removed as long as that check takes to fail it
// (lbHealth.drain): its failures then are not counted in the share, but an
// outage among them still is (the other backends must answer); the
// removal of a node it never sent to excuses nothing.
func CheckLBAvailability(evs []timeline.Event, cfg Config) []Result {
	return availability(evs, cfg, "lb", LBAvailability)
}

const (
	// lbInService: a new load balancer counts once it has answered without
	// fail for this long (its backends' health checks settle first).
	lbInService = time.Second
	// lbDrain: how long a load balancer may keep sending to a terminated
	// backend (health checks: 2 failures at 1 s, plus dial timeouts).
	lbDrain = 10 * time.Second
)

func availability(evs []timeline.Event, cfg Config, kind, check string) []Result {
	excluded := disruptions(evs)
	deleted := serviceDeletions(evs)
	terminations := removalWindows(evs, lbDrain)
	health := lbHealthChecks(evs)
	drains := newDrainWindows(evs, health)
	dropped := lbDropped(evs)
	byTarget := map[string][]timeline.Event{}
	for _, e := range evs {
		if e.Kind != timeline.Probe || e.Attrs["kind"] != kind {
			continue
		}
		if node := e.Attrs["node"]; node != "" && within(excluded[node], e.Time) {
			continue
		}
		if kind == "lb" {
			_, checked := health[e.Attrs["target"]]
			if at, ok := deleted[e.Attrs["target"]]; (ok && !probeEnd(e).Before(at)) || (!checked && within(terminations, e.Time)) {
				continue
			}
			if checked && e.Attrs["ok"] != "true" && within(drains.of(e.Attrs["target"]), e.Time) {
				e = excuse(e)
			}
		}
		byTarget[e.Attrs["target"]] = append(byTarget[e.Attrs["target"]], e)
	}
	targets := make([]string, 0, len(byTarget))
	for t := range byTarget {
		targets = append(targets, t)
	}
	sort.Strings(targets)
	switch {
	case len(targets) == 0 && kind == "api":
		return []Result{unproven(evs, check, "endpoint", "no API probe recorded")}
	case len(targets) == 0:
		return noLBProbes(evs)
	}
	var out []Result
	for _, t := range targets {
		ps := byTarget[t]
		if h, ok := health[t]; ok && kind == "lb" {
			rest, waiting := notInServiceYet(ps, h.inServiceBy())
			if waiting {
				out = append(out, result(check, t, nil,
					fmt.Sprintf("not judged: %d requests as observation ended, none answered yet, before its health check (%s, %d passes %s apart) could put a backend in service (%s)",
						len(ps), h.target, h.healthy, h.interval, h.inServiceBy().Format("15:04:05.000")),
					map[string]float64{"requests": float64(len(ps))}))
				continue
			}
			ps = rest
		}
		out = append(out, withDropped(probeResult(check, t, ps, cfg), dropped[t]))
	}
	return out
}

// notInServiceYet: a load balancer none of whose requests was answered is
// judged only from by on, when its health check could first have put a
// backend in service; waiting when no request came after by.
func notInServiceYet(ps []timeline.Event, by time.Time) (rest []timeline.Event, waiting bool) {
	for _, p := range ps {
		if p.Attrs["ok"] == "true" {
			return ps, false
		}
	}
	for _, p := range ps {
		if !p.Time.Before(by) {
			rest = append(rest, p)
		}
	}
	return rest, len(rest) == 0
}

// serviceDeletions are when each Service's deletion was asked for: the
// earliest witness, since the deleter knows the moment and an observer's
// watch may deliver it seconds later (an API server busy with a control
// plane leaving).
func serviceDeletions(evs []timeline.Event) map[string]time.Time {
	out := map[string]time.Time{}
	for _, e := range evs {
		if e.Kind == timeline.ServiceDeleted {
			if at, seen := out[e.Attrs["service"]]; !seen || e.Time.Before(at) {
				out[e.Attrs["service"]] = e.Time
			}
		}
	}
	return out
}

// probeEnd is when a probe's request finished: a request still in flight
// when its Service's deletion was asked for may fail because of it.
func probeEnd(e timeline.Event) time.Time {
	ms, err := strconv.Atoi(e.Attrs["ms"])
	if err != nil || ms < 0 {
		return e.Time
	}
	return e.Time.Add(time.Duration(ms) * time.Millisecond)
}

// removalWindows are the d after each announced node removal.
func removalWindows(evs []timeline.Event, d time.Duration) [][2]time.Time {
	var out [][2]time.Time
	for _, e := range evs {
		if e.Kind == timeline.NodeRemove {
			out = append(out, [2]time.Time{e.Time, e.Time.Add(d)})
		}
	}
	return out
}

// removals are when each node's removal began: as the runner announced
// it, or else as retiredControlPlanes infers it.
func removals(evs []timeline.Event) map[string]time.Time {
	out := removalsAnnounced(evs)
	for n, at := range retiredControlPlanes(evs, out) {
		out[n] = at
	}
	return out
}

// retiredControlPlanes infer the removals nobody announced (an observation
// of a migration run by hand or by another process): a control plane whose
// API server stopped answering for good, and whose Node was then deleted
// and not registered again, was taken away from its last answer on. Its
// server's silence is the removal, not an outage; the endpoint's probes
// still judge what clients saw. announced nodes are left alone.
func retiredControlPlanes(evs []timeline.Event, announced map[string]time.Time) map[string]time.Time {
	deleted := map[string]time.Time{}
	for _, e := range evs {
		switch e.Kind {
		case timeline.NodeDeleted:
			deleted[e.Node] = e.Time
		case timeline.NodeAdded:
			delete(deleted, e.Node)
		}
	}
	down := map[string]time.Time{} // start of each server's last run of failures
	for _, e := range evs {
		n := e.Attrs["node"]
		if e.Kind != timeline.Probe || e.Attrs["kind"] != "api" || n == "" {
			continue
		}
		if e.Attrs["ok"] == "true" {
			down[n] = time.Time{}
		} else if down[n].IsZero() {
			down[n] = e.Time
		}
	}
	out := map[string]time.Time{}
	for n, at := range deleted {
		if _, ok := announced[n]; ok || down[n].IsZero() || down[n].After(at) {
			continue
		}
		out[n] = down[n]
	}
	return out
}

// young is a target that never answered, probed for less than the longest
// outage allowed before observation ended: one that came up at the very end
// (a load balancer created as the run stops) cannot be told from one that
// never will, and is not judged. Probed longer, never answering is down.
func young(ps []timeline.Event, maxOutage time.Duration) bool {
	if len(ps) == 0 {
		return false
	}
	for _, p := range ps {
		if p.Attrs["ok"] == "true" {
			return false
		}
	}
	return ps[len(ps)-1].Time.Sub(ps[0].Time) < maxOutage
}

// fromFirstSuccess drops the failures before a target first answered: a
// joining node's API server, or a new load balancer, that is still coming
// up is not down. A target that never answered keeps them all.
func fromFirstSuccess(ps []timeline.Event) []timeline.Event {
	for i, p := range ps {
		if p.Attrs["ok"] == "true" {
			return ps[i:]
		}
	}
	return ps
}

// fromInService drops what comes before the first run of successes lasting
// d: a new load balancer answers before all its backends pass their health
// checks. A target never in service keeps everything from its first success.
func fromInService(ps []timeline.Event, d time.Duration) []timeline.Event {
	for i := 0; i < len(ps); i++ {
		if ps[i].Attrs["ok"] != "true" {
			continue
		}
		j := i
		for j+1 < len(ps) && ps[j+1].Attrs["ok"] == "true" {
			j++
			if ps[j].Time.Sub(ps[i].Time) >= d {
				return ps[i:]
			}
		}
		i = j
	}
	return fromFirstSuccess(ps)
}

// disruptions are the windows in which the procedure takes a node's API
// server down on purpose: from its removal on (announced or inferred), or
// around an in-place restart.
func disruptions(evs []timeline.Event) map[string][][2]time.Time {
	out := map[string][][2]time.Time{}
	open := map[string]time.Time{}
	for _, e := range evs {
		switch e.Kind {
		case timeline.NodeDisruptStart:
			open[e.Node] = e.Time
		case timeline.NodeDisruptEnd:
			if from, ok := open[e.Node]; ok {
				out[e.Node] = append(out[e.Node], [2]time.Time{from, e.Time})
				delete(open, e.Node)
			}
		}
	}
	for n, from := range open {
		out[n] = append(out[n], [2]time.Time{from, endOfTime})
	}
	for n, at := range removals(evs) {
		out[n] = append(out[n], [2]time.Time{at, endOfTime})
	}
	return out
}

// removalsAnnounced are when the runner first announced each node's
// removal.
func removalsAnnounced(evs []timeline.Event) map[string]time.Time {
	out := map[string]time.Time{}
	for _, e := range evs {
		if _, seen := out[e.Node]; e.Kind == timeline.NodeRemove && !seen {
			out[e.Node] = e.Time
		}
	}
	return out
}

func within(windows [][2]time.Time, t time.Time) bool {
	for _, w := range windows {
		if !t.Before(w[0]) && !t.After(w[1]) {
			return true
		}
	}
	return false
}

func probeResult(check, target string, ps []timeline.Event, cfg Config) Result {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Time.Before(ps[j].Time) })
	if check == LBAvailability {
		ps = fromInService(ps, lbInService)
	} else {
		ps = fromFirstSuccess(ps)
	}
	if young(ps, cfg.MaxOutage) {
		return result(check, target, nil,
			fmt.Sprintf("not judged: %d requests over %s as observation ended, none answered yet (under the %s outage allowed)",
				len(ps), ps[len(ps)-1].Time.Sub(ps[0].Time).Round(10*time.Millisecond), cfg.MaxOutage),
			map[string]float64{"requests": float64(len(ps))})
	}
	ok, outages, excused := 0, 0, 0
	var longest time.Duration
	var worst [2]time.Time
	var worstErr string
	for i := 0; i < len(ps); i++ {
		if ps[i].Attrs["ok"] == "true" {
			ok++
			continue
		}
		outages++
		for k := i; k < len(ps) && ps[k].Attrs["ok"] != "true"; k++ {
			if ps[k].Attrs[excusedAttr] == "true" {
				excused++
			}
		}
		j := i
		for j+1 < len(ps) && ps[j+1].Attrs["ok"] != "true" {
			j++
		}
		end := ps[j].Time // still failing at the last probe
		if j+1 < len(ps) {
			end = ps[j+1].Time
		}
		if d := end.Sub(ps[i].Time); d > longest || worstErr == "" {
			longest, worst, worstErr = d, [2]time.Time{ps[i].Time, end}, ps[i].Attrs["error"]
		}
		i = j
	}
	ratio := 0.0
	if judged := len(ps) - excused; judged > 0 {
		ratio = float64(ok) / float64(judged)
	}
	var vs []Violation
	// The share judges repeated failures; one outage that ended is judged
	// by its length. A target observed for less than
	// MaxOutage/(1-MinAvailability) (500 s by default: an API server a
	// procedure adds and removes) would otherwise fail the share on a single
	// outage the outage limit allows. An outage still open when the series
	// ends has no known length: the share judges it.
	open := ps[len(ps)-1].Attrs["ok"] != "true"
	if longest > cfg.MaxOutage || (ratio < cfg.MinAvailability && (outages > 1 || open)) {
		vs = append(vs, Violation{From: worst[0], To: worst[1], Sources: []string{"probe"},
			Message: fmt.Sprintf("%.2f%% of %d requests succeeded (minimum %.2f%%); longest outage %s (maximum %s)",
				100*ratio, len(ps), 100*cfg.MinAvailability, longest.Round(10*time.Millisecond), cfg.MaxOutage),
			Evidence: []string{"first failure of the longest outage: " + worstErr}})
	}
	summary := fmt.Sprintf("%.2f%% of %d requests; longest outage %s", 100*ratio, len(ps), longest.Round(10*time.Millisecond))
	if excused > 0 {
		summary += fmt.Sprintf("; %d failed while a removed node was still in service by the load balancer's health check (not in the share)", excused)
	}
	return result(check, target, vs, summary,
		map[string]float64{"availability": ratio, "requests": float64(len(ps)), "excused": float64(excused), "longest_outage_seconds": longest.Seconds(),
			"min_availability": cfg.MinAvailability, "max_outage_seconds": cfg.MaxOutage.Seconds()})
}
