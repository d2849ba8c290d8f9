package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/scalestat"
)

// A rehearsal with a simulated fleet reports its figures in both formats;
// one without has no scale section.
func TestScaleSection(t *testing.T) {
	evs := append(sample(),
		timeline.Event{Time: at(1), Source: "scale", Kind: timeline.ScaleStart, Attrs: map[string]string{"nodes": "2", "services": "1", "throttleQPS": "10"}},
		timeline.Event{Time: at(2), Source: "scale", Kind: timeline.ScaleJoin, Node: "sim-node-0001", Attrs: map[string]string{"mode": "in-tree"}},
		timeline.Event{Time: at(3), Source: "nodes", Kind: timeline.NodeAdded, Node: "sim-node-0001", Attrs: map[string]string{"providerID": "kind://x", "taints": ""}},
		timeline.Event{Time: at(40), Source: "scale", Kind: timeline.ScaleJoin, Node: "sim-node-0002", Attrs: map[string]string{"mode": "external"}},
		timeline.Event{Time: at(41), Source: "nodes", Kind: timeline.NodeAdded, Node: "sim-node-0002", Attrs: map[string]string{"taints": "node.cloudprovider.kubernetes.io/uninitialized"}},
		timeline.Event{Time: at(45), Source: "cloud-audit", Kind: timeline.CloudCall, Manager: "cloud-controller-manager", Controller: "cloud-node-controller",
			Attrs: map[string]string{"operation": "GetInstance", "status": "429"}},
	)
	cfg, _ := ConfigFor(evs)
	r := New("scale", evs, cfg)
	var md, page bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Scale: 2 simulated nodes, 1 Services, cloud throttled at 10 QPS", "| in-tree kubelet | 1 | 1s / 1s / 1s |",
		"| cloud-controller-manager (external kubelet) | 1 | – | – | 1 |", "| cloud-controller-manager | 1 | 1 (100.0 %) | 1 |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(page.String(), `<svg id="scale-plot"`) || !strings.Contains(page.String(), "sim-node-0002 (external): never initialised") {
		t.Errorf("report.html lacks the scale plot")
	}
	if !strings.Contains(page.String(), `<svg id="scale-calls"`) || !strings.Contains(page.String(), "minute 1: 1 calls, 1 throttled") {
		t.Errorf("report.html lacks the calls plot")
	}
	md.Reset()
	if err := WriteMarkdown(&md, sampleReport()); err != nil || strings.Contains(md.String(), "## Scale") {
		t.Errorf("a scale section without a fleet (%v)", err)
	}
}

// Load balancers not reconciled when the observation ended are said to be
// outside the window observed, never "never", with the flag that widens it.
func TestReconcileSaysTheWindowObserved(t *testing.T) {
	r := scalestat.Reconcile{HandOff: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC), LBs: 22, Done: 2,
		Outstanding: []string{"a1", "a2"}, Observed: 8 * time.Second}
	got := reconcileText(r)
	for _, want := range []string{"2 of 22 reconciled", "within the 8s observed after it", "not within it: a1, a2", "--observe-after"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if strings.Contains(got, "never") {
		t.Errorf("%q says never of what was only not yet seen", got)
	}
}
