package checks

import (
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/timeline"
)

func TestCoverageGap(t *testing.T) {
	leaseHeldByStoppedKCM := []timeline.Event{{Time: at(0), Source: "lease", Kind: timeline.Lease,
		Attrs: map[string]string{"lease": "cloud-provider-extraction-migration", "holder": "cp1_x"}}}
	for _, tc := range []struct {
		name    string
		evs     []timeline.Event
		fires   bool
		longest float64
	}{
		{"hand-off within the threshold", join(window(0, 60), runsFor(0, 20, kcm, "cp1", svc), downFor(20.5, 60, kcm, "cp1"), runsFor(40, 60, ccm, "cp4", svc)), false, 19.5},
		{"hand-off too slow", join(window(0, 100), runsFor(0, 20, kcm, "cp1", svc), downFor(20.5, 100, kcm, "cp1"), runsFor(70, 100, ccm, "cp4", svc)), true, 49.5},
		{"gap at the start", join(window(0, 100), downFor(0, 44.5, ccm, "cp4"), runsFor(45, 100, ccm, "cp4", svc)), true, 44.5},
		{"gap at the end", join(window(0, 100), runsFor(0, 10, kcm, "cp1", svc), downFor(10.5, 100, kcm, "cp1")), true, 89.5},
		{"lease held by a process that stopped its controllers", join(window(0, 100), leaseHeldByStoppedKCM,
			runsFor(0, 10, kcm, "cp1", "deployment-controller", svc), runsFor(10.5, 100, kcm, "cp1", "deployment-controller")), true, 89.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, CheckCoverageGap(tc.evs, cfg), svc)
			if r.Passed == tc.fires {
				t.Fatalf("fired=%t, want %t: %+v", !r.Passed, tc.fires, r)
			}
			if got := r.Metrics["longest_gap_seconds"]; got < tc.longest-0.01 || got > tc.longest+0.01 {
				t.Errorf("longest gap %.2fs, want %.2fs", got, tc.longest)
			}
		})
	}
}

// A threshold derived from the managers' leases judges by its value and
// says where it came from.
func TestCoverageGapThresholdBasis(t *testing.T) {
	evs := join(window(0, 100), runsFor(0, 20, kcm, "cp1", svc), downFor(20.5, 100, kcm, "cp1"), runsFor(70, 100, ccm, "cp4", svc))
	c := cfg
	c.MaxGap, c.Basis = 85*time.Second, map[string]string{"max-gap": "1m25s = lease 1m0s + 4.4 × retry 2s + headroom 16.2s"}
	r := one(t, CheckCoverageGap(evs, c), svc)
	if !r.Passed || !strings.Contains(r.Summary, "threshold 1m25s = lease 1m0s") {
		t.Fatalf("%+v", r)
	}
}
