package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

func TestMutualExclusion(t *testing.T) {
	for _, tc := range []struct {
		name    string
		evs     []timeline.Event
		fires   bool
		sources string
	}{
		{"clean hand-off", join(runsFor(0, 20, kcm, "cp1", svc), downFor(20.5, 40, kcm, "cp1"), runsFor(21, 40, ccm, "cp4", svc)), false, ""},
		{"five seconds in both", join(runsFor(0, 25, kcm, "cp1", svc), runsFor(20, 40, ccm, "cp4", svc)), true, "health"},
		{"overlap corroborated by the API audit", join(runsFor(0, 25, kcm, "cp1", svc), runsFor(20, 40, ccm, "cp4", svc),
			[]timeline.Event{write(21, kcm, svc), write(22, ccm, svc)}), true, "health,api-audit"},
		{"overlap shorter than the tolerance", join(runsFor(0, 20, kcm, "cp1", svc), runsFor(19.5, 40, ccm, "cp4", svc)), false, ""},
		{"sampling alone never overlaps", join(runsFor(0, 20, kcm, "cp1", svc), runsFor(20.5, 40, ccm, "cp4", svc)), false, ""},
		{"a manager restarts", join(runsFor(0, 10, kcm, "cp1", svc), downFor(10.5, 14.5, kcm, "cp1"), runsFor(15, 30, kcm, "cp1", svc),
			runsFor(11, 14, ccm, "cp4", svc)), false, ""},
		{"two instances of one manager", join(runsFor(0, 20, kcm, "cp1", svc), runsFor(5, 20, kcm, "cp2", svc)), true, "health"},
		{"writes interleave though health missed it", join(runsFor(0, 9, kcm, "cp1", svc),
			[]timeline.Event{write(10, kcm, svc), write(12, ccm, svc), write(14, kcm, svc)}), true, "api-audit"},
		{"the audit's clock runs ahead of health by 0.8s at a clean hand-off", join(runsFor(0, 20, kcm, "cp1", svc), runsFor(20.5, 40, ccm, "cp4", svc),
			[]timeline.Event{write(19.9, kcm, svc), write(20.2, ccm, svc), write(21, ccm, svc)}), false, ""},
		{"health skewed by less than the tolerance", join(runsFor(0, 20.5, kcm, "cp1", svc), runsFor(19.7, 40, ccm, "cp4", svc)), false, ""},
		{"writes hand over once", join(runsFor(0, 20, kcm, "cp1", svc), runsFor(20.5, 40, ccm, "cp4", svc),
			[]timeline.Event{write(10, kcm, svc), write(12, kcm, svc), write(30, ccm, svc), write(31, ccm, svc)}), false, ""},
		{"no health or metrics interval: unproven", []timeline.Event{write(10, kcm, svc), write(30, ccm, svc)}, true, "evidence"},
		{"overlap seen by health and metrics", join(runsFor(0, 25, kcm, "cp1", svc), runsFor(20, 40, ccm, "cp4", svc),
			metricsFor(0, 24, kcm, "cp1", svc), metricsFor(21, 40, ccm, "cp4", svc)), true, "health,metrics"},
		{"overlap only the metrics saw", join(runsFor(0, 20, kcm, "cp1", svc), runsFor(20.5, 40, ccm, "cp4", svc),
			metricsFor(0, 26, kcm, "cp1", svc), metricsFor(21, 40, ccm, "cp4", svc)), true, "metrics"},
		{"metrics hand over cleanly", join(metricsFor(0, 20, kcm, "cp1", svc), metricsFor(20.5, 40, ccm, "cp4", svc)), false, ""},
		{"metrics overlap shorter than the tolerance", join(metricsFor(0, 20, kcm, "cp1", svc), metricsFor(19.5, 40, ccm, "cp4", svc)), false, ""},
		{"another controller overlapping does not count", join(runsFor(0, 25, kcm, "cp1", "node-route-controller"), runsFor(20, 40, ccm, "cp4", "node-route-controller"),
			runsFor(0, 40, kcm, "cp2", svc)), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, CheckMutualExclusion(tc.evs, cfg), svc)
			if r.Passed == tc.fires {
				t.Fatalf("fired=%t, want %t: %+v", !r.Passed, tc.fires, r)
			}
			if tc.fires && strings.Join(r.Violations[0].Sources, ",") != tc.sources {
				t.Errorf("sources %v, want %s", r.Violations[0].Sources, tc.sources)
			}
			if tc.fires && len(r.Violations[0].Evidence) == 0 {
				t.Error("a violation without evidence")
			}
		})
	}
}
