package checks

import (
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/timeline"
)

func TestThresholdSet(t *testing.T) {
	c := DefaultConfig(nil)
	for name, v := range map[string]string{"max-gap": "1m", "max-outage": "10s", "min-availability": "98.5%", "clock-tolerance": "500ms"} {
		if err := c.Set(name, v); err != nil {
			t.Fatalf("%s=%s: %v", name, v, err)
		}
	}
	if c.MaxGap != time.Minute || c.MaxOutage != 10*time.Second || c.MinAvailability != 0.985 || c.Tolerance != 500*time.Millisecond {
		t.Fatalf("set %+v", c)
	}
	if err := c.Set("min-availability", "0.9"); err != nil || c.MinAvailability != 0.9 {
		t.Fatalf("a fraction: %v %v", err, c.MinAvailability)
	}
	for _, bad := range [][2]string{{"max-gapp", "1m"}, {"max-gap", "soon"}, {"max-gap", "1h"}, {"max-outage", "0s"}, {"max-outage", "1h"},
		{"min-availability", "120%"}, {"min-availability", "NaN"}, {"min-availability", "10%"}, {"min-availability", "most"}, {"clock-tolerance", "5s"}} {
		if err := c.Set(bad[0], bad[1]); err == nil {
			t.Errorf("%s=%s accepted", bad[0], bad[1])
		}
	}
	if h := ThresholdHelp(); !strings.Contains(h, "max-outage") || !strings.Contains(h, "99%") {
		t.Errorf("help:\n%s", h)
	}
}

// A threshold set moves the verdict: a 3 s outage passes the default 5 s
// and fails a 2 s limit.
func TestThresholdMovesVerdict(t *testing.T) {
	evs := join(probes(0, 50, "api", "endpoint", "", true), probes(50.25, 53, "api", "endpoint", "", false), probes(53.25, 400, "api", "endpoint", "", true))
	if r := one(t, CheckAPIAvailability(evs, cfg), "endpoint"); !r.Passed {
		t.Fatalf("3 s outage under the default: %+v", r)
	}
	strict := cfg
	if err := strict.Set("max-outage", "2s"); err != nil {
		t.Fatal(err)
	}
	if r := one(t, CheckAPIAvailability(evs, strict), "endpoint"); r.Passed {
		t.Fatalf("3 s outage under max-outage 2s passed: %+v", r)
	}
}

// The evidence check judges a poller's silences against the period its
// observer declared on the timeline, falling back to the default period
// for timelines without a declaration.
func TestEvidenceUsesDeclaredPeriod(t *testing.T) {
	o := observers[0]
	if o.periodAttr != timeline.HealthEvery {
		t.Fatalf("first observer %s", o.name)
	}
	evs := []timeline.Event{{Kind: timeline.ObserverStart, Attrs: map[string]string{timeline.HealthEvery: "2s"}}}
	if got := o.declared(evs).period; got != 2*time.Second {
		t.Fatalf("declared period %s, want 2s", got)
	}
	if got := holeTolerance(o.declared(evs).period); got != 20*time.Second {
		t.Fatalf("tolerance %s, want 20s", got)
	}
	evs[0].Attrs[timeline.HealthEvery] = "1m"
	if got := o.declared(evs).period; got != maxDeclaredPeriod {
		t.Fatalf("a minute declared: %s, want the %s bound", got, maxDeclaredPeriod)
	}
	if got := o.declared(nil).period; got != 500*time.Millisecond {
		t.Fatalf("no declaration: %s, want the 500ms fallback", got)
	}
}
