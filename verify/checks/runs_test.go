package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

func TestProcedures(t *testing.T) {
	const fwd, back = "Migrate", "Roll back"
	start := func(sec float64, title string) timeline.Event {
		return timeline.Event{Time: at(sec), Source: "runner", Kind: timeline.RunStart, Message: title}
	}
	end := func(sec float64, outcome, msg string) timeline.Event {
		return timeline.Event{Time: at(sec), Source: "runner", Kind: timeline.RunEnd, Outcome: outcome, Message: msg}
	}
	stopped := "step 6 (switch-to-external): reading kubeadm-flags.env on worker4: No such file"
	for _, tc := range []struct {
		name  string
		evs   []timeline.Event
		fails map[string]string // title → what its violation says
	}{
		{"completed", []timeline.Event{start(0, fwd), end(90, timeline.OK, "")}, nil},
		{"stopped at a step, every other check green", []timeline.Event{start(0, fwd), end(90, timeline.Failed, stopped)}, map[string]string{fwd: stopped}},
		{"interrupted, resumed and completed", []timeline.Event{start(0, fwd), end(30, timeline.Interrupted, "context canceled"), start(40, fwd), end(90, timeline.OK, "")}, nil},
		{"completed, then a re-run interrupted", []timeline.Event{start(0, fwd), end(30, timeline.OK, ""), start(40, fwd), end(45, timeline.Interrupted, "context canceled")}, map[string]string{fwd: "interrupted (run 2 of 2)"}},
		{"killed: no end", []timeline.Event{start(0, fwd)}, map[string]string{fwd: "did not finish"}},
		{"forward completed, rollback failed", []timeline.Event{start(0, fwd), end(90, timeline.OK, ""), start(91, back), end(200, timeline.Failed, "step 7: balancer backends")}, map[string]string{back: "balancer backends"}},
		{"observers only: unproven", nil, map[string]string{"procedure": "no run.start"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := CheckProcedures(tc.evs, cfg)
			for _, r := range rs {
				want, fails := tc.fails[r.Subject]
				if r.Passed == fails {
					t.Fatalf("%s: passed=%t, want %t: %+v", r.Subject, r.Passed, !fails, r)
				}
				if fails && !strings.Contains(r.Violations[0].Message, want) {
					t.Fatalf("%s: %q does not say %q", r.Subject, r.Violations[0].Message, want)
				}
			}
		})
	}
}
