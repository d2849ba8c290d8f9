package checks

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// LBProvision is the check that a LoadBalancer Service created while
// observed gets its address: the service controller, in whichever manager
// runs it by then, makes its load balancer. A manager stuck in the cloud's
// refusals (a security group it cannot delete, a public IP the
// subscription may not have) leaves new Services pending; nothing else
// sees it, since no load balancer exists to probe.
const LBProvision = "lb-provision"

// CheckLBProvision: every LoadBalancer Service first seen without an
// address has one within MaxPending of then, or is deleted sooner. The
// wait is counted but while the cloud could not make it: while a Node
// whose instance was terminated is still there (the providers register
// every Node's instance with a Service's load balancer, and a cloud
// refuses a terminated one, ELB with InvalidInstance, so no Service gets
// its load balancer until that Node goes — stale-node judges how long it
// stays), and while a fault impairs the cloud's API for every caller
// (timeline.FaultTargetCloud). One still without an
// address when the observation ended sooner is not judged; Services that
// had their address when first seen were made before (lb-ingress holds
// them to it), and those first seen before a procedure's first step are
// the setup's, which waits for their addresses before anything changes.
// With no Service recorded at all, lb-ingress says whether evidence is
// missing.
func CheckLBProvision(evs []timeline.Event, cfg Config) []Result {
	if countKind(evs, timeline.ServiceIngress) == 0 {
		return nil
	}
	_, end := span(evs)
	bound := cfg.threshold("max-lb-pending", cfg.MaxPending)
	excused := append(lingeringNodes(evs, end), cloudImpaired(evs, end)...)
	began := procedureBegan(evs)
	var out []Result
	for _, p := range pendingServices(evs) {
		if p.since.Time.Before(began) {
			continue // the setup's: it waits for their addresses before anything changes
		}
		until := p.until(end)
		waited := countedWait(p.since.Time, until, excused)
		off := until.Sub(p.since.Time) - waited
		metrics := map[string]float64{"seconds": waited.Seconds(), "excused_seconds": off.Seconds(), "max_pending_seconds": cfg.MaxPending.Seconds()}
		took := waited.Round(100 * time.Millisecond).String()
		if off > 0 {
			took += fmt.Sprintf(" (and %s while a terminated instance's Node was still there or a fault impaired the cloud)", off.Round(100*time.Millisecond))
		}
		switch {
		case p.got != nil && waited <= cfg.MaxPending:
			out = append(out, result(LBProvision, p.service, nil, fmt.Sprintf("got its address %s after it was first seen (threshold %s)", took, bound), metrics))
		case p.deleted != nil && waited <= cfg.MaxPending:
			out = append(out, result(LBProvision, p.service, nil, fmt.Sprintf("deleted %s after it was first seen, never given an address", took), metrics))
		case p.got == nil && p.deleted == nil && waited <= cfg.MaxPending:
			out = append(out, notJudged(LBProvision, p.service, fmt.Sprintf("no address yet as the observation ended, %s after the Service was first seen (threshold %s)", took, bound)))
		default:
			v := Violation{From: p.since.Time, To: until, Sources: []string{"api"},
				Message:  fmt.Sprintf("the Service waited %s for its load balancer's address (threshold %s)", took, bound),
				Evidence: waitEvidence(evs, p, until, end)}
			out = append(out, result(LBProvision, p.service, []Violation{v}, v.Message, metrics))
		}
	}
	return out
}

// waitEvidence is a Service's wait as the violation tells it: first seen,
// the service controller's last write, the end, then what the cloud
// refused and the errors the managers logged naming the Service meanwhile.
func waitEvidence(evs []timeline.Event, p pending, until, end time.Time) []string {
	out := []string{clock(p.since.Time) + " first seen with no address", lastAttempt(evs, p), p.ending(end)}
	out = append(out, refusedWhile(evs, p.since.Time, until)...)
	return append(out, loggedErrors(evs, p.since.Time, until, naming(p.service), maxLoggedCited)...)
}

// procedureBegan is when the first step of a procedure started (zero
// for an observation without one: every Service is judged).
func procedureBegan(evs []timeline.Event) time.Time {
	for _, e := range evs {
		if e.Kind == timeline.StepStart {
			return e.Time
		}
	}
	return time.Time{}
}

// lingeringNodes are the windows in which a Node whose instance was
// terminated was still there: from the termination to its deletion, or
// to the end.
func lingeringNodes(evs []timeline.Event, end time.Time) [][2]time.Time {
	var out [][2]time.Time
	for _, t := range terminations(evs) {
		gone, ok := deletedAfter(evs, t.Node, t.Time)
		if !ok {
			gone = end
		}
		out = append(out, [2]time.Time{t.Time, gone})
	}
	return out
}

// cloudImpaired are the windows of faults whose target is the cloud's
// API (every caller throttled, failing or refused): from each start to
// its end, or to the end.
func cloudImpaired(evs []timeline.Event, end time.Time) [][2]time.Time {
	var out [][2]time.Time
	open := map[string]time.Time{}
	for _, e := range evs {
		if e.Attrs["target"] != timeline.FaultTargetCloud {
			continue
		}
		switch e.Kind {
		case timeline.FaultStart:
			open[e.Attrs["fault"]] = e.Time
		case timeline.FaultEnd:
			if from, ok := open[e.Attrs["fault"]]; ok {
				out = append(out, [2]time.Time{from, e.Time})
				delete(open, e.Attrs["fault"])
			}
		}
	}
	for _, from := range open {
		out = append(out, [2]time.Time{from, end})
	}
	return out
}

// countedWait is how much of [from, to] no excusing window covers.
func countedWait(from, to time.Time, excused [][2]time.Time) time.Duration {
	spans := make([]RunSpan, len(excused))
	for i, w := range excused {
		spans[i] = RunSpan{From: w[0], To: w[1]}
	}
	var d time.Duration
	for _, u := range uncovered(spans, from, to) {
		d += u[1].Sub(u[0])
	}
	return d
}

// lastAttempt is the service controller's last write about the Service
// while it waited (its status, or an Event on it), by which manager, as
// the API audit or the objects' managedFields recorded it: a manager that
// stopped trying, or never began, shows here; an Event quotes its reason
// and message.
func lastAttempt(evs []timeline.Event, p pending) string {
	var last *timeline.Event
	for i, e := range evs {
		name := e.Attrs["name"]
		if (e.Kind != timeline.APIWrite && e.Kind != timeline.ManagedWrite) || e.Controller != "service-lb-controller" ||
			e.Time.Before(p.since.Time) || (name != p.service && !strings.HasPrefix(name, p.service+".")) {
			continue
		}
		last = &evs[i]
	}
	if last == nil {
		return "no write about it by any manager's service-lb-controller recorded since"
	}
	out := fmt.Sprintf("%s last write about it by %s's service-lb-controller (%s %s, %s)", clock(last.Time), last.Manager,
		last.Attrs["verb"]+last.Attrs["operation"], last.Attrs["resource"], last.Source)
	if r := last.Attrs["reason"]; last.Attrs["resource"] == "events" && r != "" {
		// An Event says what the controller met: the provider's error.
		out += ": " + r
		if m := last.Attrs["message"]; m != "" {
			out += " " + strconv.Quote(m)
		}
	}
	return out
}

// maxRefusalsCited bounds the cloud's refusals a violation cites.
const maxRefusalsCited = 5

// refusedWhile are the cloud audit's refusals of the managers' calls
// between from and to, by manager, operation and the knob or policy
// behind them (an action a policy does not allow shows as knob iam): why
// a service controller that tried got nowhere.
func refusedWhile(evs []timeline.Event, from, to time.Time) []string {
	var during []timeline.Event
	for _, e := range evs {
		if e.Kind == timeline.CloudCall && !e.Time.Before(from) && !e.Time.After(to) {
			during = append(during, e)
		}
	}
	out := auditRefusals(during, func(string, string) bool { return true })
	if len(out) > maxRefusalsCited {
		out = append(out[:maxRefusalsCited], fmt.Sprintf("cloud audit: %d more kinds of refusal", len(out)-maxRefusalsCited))
	}
	return out
}

// pending is a Service first seen without an address, and what ended
// its wait: an address, or its deletion (nil while neither came).
type pending struct {
	service      string
	since        timeline.Event
	got, deleted *timeline.Event
}

func (p pending) until(end time.Time) time.Time {
	switch {
	case p.got != nil:
		return p.got.Time
	case p.deleted != nil:
		return p.deleted.Time
	}
	return end
}

func (p pending) ending(end time.Time) string {
	switch {
	case p.got != nil:
		return clock(p.got.Time) + " status " + p.got.Attrs["ingress"]
	case p.deleted != nil:
		return clock(p.deleted.Time) + " deleted, never given an address"
	}
	return clock(end) + " observation ended, still no address"
}

// pendingServices are the Services first seen without an address, in the
// order seen; a Service deleted and made again under its name waits
// afresh.
func pendingServices(evs []timeline.Event) []pending {
	var out []pending
	open := map[string]int{}   // service → its wait in out, while waiting
	known := map[string]bool{} // seen since its last deletion
	for _, e := range evs {
		svc := e.Attrs["service"]
		switch e.Kind {
		case timeline.ServiceIngress:
			i, waiting := open[svc]
			switch {
			case waiting && e.Attrs["ingress"] != "":
				ev := e
				out[i].got = &ev
				delete(open, svc)
			case !known[svc] && e.Attrs["ingress"] == "":
				open[svc] = len(out)
				out = append(out, pending{service: svc, since: e})
			}
			known[svc] = true
		case timeline.ServiceDeleted:
			if i, waiting := open[svc]; waiting {
				ev := e
				out[i].deleted = &ev
				delete(open, svc)
			}
			delete(known, svc)
		}
	}
	return out
}
