package checks

import (
	"slices"
	"strings"
	"testing"
	"time"

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

// A run.end ok is not taken on its word: steps that no run writes fail
// the procedure, naming the event.
func TestProceduresHoldTheSteps(t *testing.T) {
	const fwd = "Migrate"
	start := timeline.Event{Time: at(0), Source: "runner", Kind: timeline.RunStart, Procedure: "taskdoc", Message: fwd,
		Attrs: map[string]string{timeline.RunSteps: "grant,enable-leader-migration,settle", timeline.RunFrom: "grant", timeline.RunUntil: "settle"}}
	step := func(sec float64, kind, name string, index int, outcome string) timeline.Event {
		return timeline.Event{Time: at(sec), Source: "runner", Kind: kind, Procedure: "taskdoc", Step: name, Index: index, Outcome: outcome}
	}
	end := timeline.Event{Time: at(90), Source: "runner", Kind: timeline.RunEnd, Procedure: "taskdoc", Outcome: timeline.OK}
	grant := []timeline.Event{step(1, timeline.StepStart, "grant", 1, ""), step(2, timeline.StepEnd, "grant", 1, timeline.OK)}
	enable := []timeline.Event{step(3, timeline.StepStart, "enable-leader-migration", 2, ""), step(40, timeline.StepEnd, "enable-leader-migration", 2, timeline.OK)}
	settle := []timeline.Event{step(41, timeline.StepStart, "settle", 3, ""), step(80, timeline.StepEnd, "settle", 3, timeline.OK)}
	run := func(parts ...[]timeline.Event) []timeline.Event {
		evs := []timeline.Event{start}
		for _, p := range parts {
			evs = append(evs, p...)
		}
		return append(evs, end)
	}
	failed := slices.Clone(settle)
	failed[1].Outcome = timeline.Failed
	for name, tc := range map[string]struct {
		evs  []timeline.Event
		says string
	}{
		"completed":                        {run(grant, enable, settle), ""},
		"the last step failed, run.end ok": {run(grant, enable, failed), `event 8 of the timeline: run.end ok, but step "settle" ended failed`},
		"a step that never ended":          {run(grant[:1], enable, settle), `event 3 of the timeline: step.start of step "enable-leader-migration" while step "grant"`},
		"enable-leader-migration removed":  {run(grant, settle), `event 4 of the timeline: step.start of step "settle" as step 3 right after step "grant"`},
		"the last step removed":            {run(grant, enable), "event 6 of the timeline: run.end ok, but its run declares steps up to step 3 (settle)"},
		"every step event written twice":   {run(grant, grant, enable, settle), `event 4 of the timeline: step.start of step "grant", which already began on line 2`},
		"a run longer than a day":          {append([]timeline.Event{start}, timeline.Event{Time: at(0).Add(timeline.MaxRun + time.Second), Source: "runner", Kind: timeline.RunEnd, Procedure: "taskdoc", Outcome: timeline.OK}), "no run lasts more than 24h0m0s"},
	} {
		t.Run(name, func(t *testing.T) {
			rs := CheckProcedures(tc.evs, cfg)
			if len(rs) != 1 || rs[0].Subject != fwd {
				t.Fatalf("want one result for %s, got %+v", fwd, rs)
			}
			if r := rs[0]; tc.says == "" && !r.Passed {
				t.Fatalf("failed: %+v", r)
			} else if tc.says != "" && (r.Passed || !strings.Contains(r.Violations[0].Message, tc.says)) {
				t.Fatalf("got %+v\nwant it failed saying %q", r, tc.says)
			}
		})
	}
}
