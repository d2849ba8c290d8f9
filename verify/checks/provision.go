package checks

import (
	"fmt"
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
// address has one within MaxPending of then, or is deleted sooner. One
// still without an address when the observation ended sooner than that is
// not judged; Services that had their address when first seen were made
// before and are not judged either (lb-ingress holds them to it). With no
// Service recorded at all, lb-ingress says whether evidence is missing.
func CheckLBProvision(evs []timeline.Event, cfg Config) []Result {
	if countKind(evs, timeline.ServiceIngress) == 0 {
		return nil
	}
	_, end := span(evs)
	bound := cfg.threshold("max-lb-pending", cfg.MaxPending)
	var out []Result
	for _, p := range pendingServices(evs) {
		waited := p.until(end).Sub(p.since.Time)
		metrics := map[string]float64{"seconds": waited.Seconds(), "max_pending_seconds": cfg.MaxPending.Seconds()}
		switch {
		case p.got != nil && waited <= cfg.MaxPending:
			out = append(out, result(LBProvision, p.service, nil, fmt.Sprintf("got its address %s after it was first seen (threshold %s)", waited.Round(100*time.Millisecond), bound), metrics))
		case p.deleted != nil && waited <= cfg.MaxPending:
			out = append(out, result(LBProvision, p.service, nil, fmt.Sprintf("deleted %s after it was first seen, never given an address", waited.Round(100*time.Millisecond)), metrics))
		case p.got == nil && p.deleted == nil && waited <= cfg.MaxPending:
			out = append(out, notJudged(LBProvision, p.service, fmt.Sprintf("no address yet as the observation ended, %s after the Service was first seen (threshold %s)", waited.Round(100*time.Millisecond), bound)))
		default:
			v := Violation{From: p.since.Time, To: p.since.Time.Add(waited), Sources: []string{"api"},
				Message:  fmt.Sprintf("the Service waited %s for its load balancer's address (threshold %s)", waited.Round(100*time.Millisecond), bound),
				Evidence: []string{clock(p.since.Time) + " first seen with no address", p.ending(end)}}
			out = append(out, result(LBProvision, p.service, []Violation{v}, v.Message, metrics))
		}
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
