package checks

import (
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/timeline"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }

const (
	kcm = "kube-controller-manager"
	ccm = "cloud-controller-manager"
	svc = "service-lb-controller"
)

// runsFor samples a manager instance every half second from..to (inclusive)
// showing controllers.
func runsFor(from, to float64, mgr, inst string, ctrls ...string) []timeline.Event {
	var out []timeline.Event
	for s := from; s <= to+1e-9; s += 0.5 {
		out = append(out, timeline.Event{Time: at(s), Source: "health", Kind: timeline.Health, Manager: mgr, Instance: inst,
			Attrs: map[string]string{"up": "true", "controllers": strings.Join(ctrls, ",")}})
	}
	return out
}

// metricsFor is runsFor as /metrics scrapes (running_managed_controllers).
func metricsFor(from, to float64, mgr, inst string, ctrls ...string) []timeline.Event {
	out := runsFor(from, to, mgr, inst, ctrls...)
	for i := range out {
		out[i].Kind, out[i].Source = timeline.Metrics, "metrics"
	}
	return out
}

func downFor(from, to float64, mgr, inst string) []timeline.Event {
	var out []timeline.Event
	for s := from; s <= to+1e-9; s += 0.5 {
		out = append(out, timeline.Event{Time: at(s), Source: "health", Kind: timeline.Health, Manager: mgr, Instance: inst,
			Attrs: map[string]string{"up": "false"}})
	}
	return out
}

func write(sec float64, mgr, ctrl string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "api-audit", Kind: timeline.APIWrite, Manager: mgr, Controller: ctrl,
		Attrs: map[string]string{"verb": "patch", "resource": "services/status", "name": "default/web"}}
}

func window(from, to float64) []timeline.Event {
	return []timeline.Event{{Time: at(from), Source: "observer", Kind: timeline.ObserverStart}, {Time: at(to), Source: "observer", Kind: timeline.ObserverStop}}
}

func join(parts ...[]timeline.Event) []timeline.Event {
	var out []timeline.Event
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func one(t *testing.T, rs []Result, subject string) Result {
	t.Helper()
	for _, r := range rs {
		if r.Subject == subject {
			return r
		}
	}
	t.Fatalf("no result for %s in %+v", subject, rs)
	return Result{}
}

var cfg = DefaultConfig([]string{svc})

// logged is an error a manager logged (manager.error), with the lines
// folded into it ("" for none).
func logged(sec float64, mgr, source, msg, repeats string) timeline.Event {
	e := timeline.Event{Time: at(sec), Source: "logs", Kind: timeline.ManagerError, Manager: mgr, Instance: "cp-1",
		Attrs: map[string]string{"source": source, "message": msg}}
	if repeats != "" {
		e.Attrs["repeats"] = repeats
	}
	return e
}
