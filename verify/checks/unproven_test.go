package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

func snapshot(attrs map[string]string) timeline.Event {
	return timeline.Event{Time: at(59), Source: "observer", Kind: timeline.Snapshot, Attrs: attrs}
}

func TestTooLittleEvidenceFails(t *testing.T) {
	empty := map[string]string{"services": "", "loadBalancers": ""}
	lbCreated := timeline.Event{Time: at(5), Source: "cloud", Kind: timeline.LBCreated, Attrs: map[string]string{"service": "default/web"}}
	loadStart := timeline.Event{Time: at(1), Source: "load", Kind: timeline.LoadStart, Attrs: map[string]string{"profile": "light"}}
	for _, tc := range []struct {
		name  string
		check func([]timeline.Event, Config) []Result
		evs   []timeline.Event
		says  string // "" when the check must pass
	}{
		{"no LB probe though the cloud made a load balancer", CheckLBAvailability, join(window(0, 60), []timeline.Event{lbCreated, snapshot(empty)}), "1 load balancer(s) were created"},
		{"no LB probe and no snapshot", CheckLBAvailability, window(0, 60), "no end snapshot"},
		{"no LB probe, a Service at the end", CheckLBAvailability, join(window(0, 60), []timeline.Event{snapshot(map[string]string{"services": "default/web", "loadBalancers": ""})}), "lists default/web"},
		{"no LB probe, none to probe", CheckLBAvailability, join(window(0, 60), []timeline.Event{snapshot(empty)}), ""},
		{"a snapshot that could not list the cloud's load balancers", CheckLBIdentity, join(window(0, 60), []timeline.Event{snapshot(map[string]string{"services": ""})}), "could not list its loadBalancers"},
		{"a load that never stopped", CheckLoad, join(window(0, 60), []timeline.Event{loadStart}), "never stopped"},
		{"no run", CheckProcedures, window(0, 60), "no run.start"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := tc.check(tc.evs, cfg)
			if len(rs) != 1 {
				t.Fatalf("want one result, got %+v", rs)
			}
			if r := rs[0]; r.Passed != (tc.says == "") || tc.says != "" && !strings.Contains(r.Violations[0].Message, tc.says) {
				t.Fatalf("want it to say %q (\"\": pass), got %+v", tc.says, r)
			}
			if r := rs[0]; tc.says != "" && (!r.Unproven() || !strings.HasPrefix(r.Summary, "unproven: ")) {
				t.Errorf("too little evidence reads as a finding, or as not judged: %+v", r)
			}
		})
	}
	if rs := CheckLoad(window(0, 60), cfg); len(rs) != 0 {
		t.Errorf("no load ran (handover observe): want no load result, got %+v", rs)
	}
}

func TestResultUnproven(t *testing.T) {
	if r := unproven(nil, MutualExclusion, "x", "no sample"); !r.Unproven() {
		t.Error("an unproven result does not say so")
	}
	seen := result(MutualExclusion, "x", []Violation{{Sources: []string{"health"}, Message: "ran in both"}}, "", nil)
	if seen.Unproven() || result(MutualExclusion, "x", nil, "", nil).Unproven() {
		t.Error("a judged result reads as unproven")
	}
}
