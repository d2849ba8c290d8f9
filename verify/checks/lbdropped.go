package checks

import (
	"fmt"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// droppedSpan is a time the cloud's network dropped a load balancer's
// traffic to some of its backends (timeline.LBDropped), until the next
// record of that load balancer said otherwise.
type droppedSpan struct {
	from, to time.Time // to is zero while it lasted to the end
	pairs    string
}

// lbDropped are, for each Service's load balancer, the spans in which the
// cloud's network dropped its traffic to some backends.
func lbDropped(evs []timeline.Event) map[string][]droppedSpan {
	out := map[string][]droppedSpan{}
	for _, e := range evs {
		if e.Kind != timeline.LBCreated && e.Kind != timeline.LBChanged && e.Kind != timeline.LBDeleted {
			continue
		}
		svc := e.Attrs["service"]
		spans := out[svc]
		if n := len(spans); n > 0 && spans[n-1].to.IsZero() {
			if spans[n-1].pairs == e.Attrs[timeline.LBDropped] {
				continue
			}
			spans[n-1].to = e.Time
		}
		if pairs := e.Attrs[timeline.LBDropped]; pairs != "" && e.Kind != timeline.LBDeleted {
			spans = append(spans, droppedSpan{from: e.Time, pairs: pairs})
		}
		out[svc] = spans
	}
	return out
}

// withDropped adds to each of r's violations the traffic the network
// dropped during it: the reason a load balancer had no backend to send
// to, which its probes alone cannot tell.
func withDropped(r Result, spans []droppedSpan) Result {
	for i, v := range r.Violations {
		for _, s := range spans {
			if s.from.After(v.To) || (!s.to.IsZero() && s.to.Before(v.From)) {
				continue
			}
			until := "on"
			if !s.to.IsZero() {
				until = "until " + s.to.UTC().Format("15:04:05.000")
			}
			r.Violations[i].Evidence = append(r.Violations[i].Evidence, fmt.Sprintf(
				"from %s %s the cloud's network dropped its traffic to %s (no security-group rule letting the load balancer in)",
				s.from.UTC().Format("15:04:05.000"), until, s.pairs))
		}
	}
	return r
}
