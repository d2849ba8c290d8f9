package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// writeObservation writes an observer's timeline on node, its clock skew
// ahead: a lease change and a Node change both observers watched, and its
// node's manager sampled.
func writeObservation(t *testing.T, dir, node string, skew time.Duration) string {
	t.Helper()
	t0 := time.Now().Add(-time.Minute).Truncate(time.Second)
	at := func(d time.Duration) time.Time { return t0.Add(d + skew) }
	evs := []timeline.Event{
		{Time: at(0), Source: "observer", Kind: timeline.ObserverStart, Attrs: map[string]string{timeline.FixedManagers: "kube-controller-manager@" + node}},
		{Time: at(15 * time.Second), Source: "health", Kind: timeline.Health, Manager: "kube-controller-manager", Instance: node, Attrs: map[string]string{"up": "true"}},
		{Time: at(20 * time.Second), Source: "lease", Kind: timeline.Lease, Attrs: map[string]string{"lease": "kube-controller-manager", "holder": "cp-2_b"}},
		{Time: at(30 * time.Second), Source: "nodes", Kind: timeline.NodeChanged, Node: "cp-1", Attrs: map[string]string{"taints": "x"}},
		{Time: at(40 * time.Second), Source: "observer", Kind: timeline.ObserverStop},
	}
	path := filepath.Join(dir, node+".jsonl")
	var b strings.Builder
	for _, e := range evs {
		line, _ := json.Marshal(e)
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// report merge given timelines joins them into --out's timeline, says
// each clock's offset, and checks the merged one.
func TestReportMergeJoinsObserversTimelines(t *testing.T) {
	dir := t.TempDir()
	a, b := writeObservation(t, dir, "cp-1", 0), writeObservation(t, dir, "cp-2", 250*time.Millisecond)
	out := filepath.Join(dir, "merged")
	got, _ := runCLIOut(t, "report", "merge", a, b, "--out", out) // the checks fail: a minute of two samples proves little
	if !strings.Contains(got, "clock of "+b+" +250ms ±0s (2 shared changes)") {
		t.Fatalf("the offset is not said:\n%s", got)
	}
	evs, err := timeline.ReadFile(filepath.Join(out, "timeline.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	health := 0
	for _, e := range evs {
		if e.Kind == timeline.Health {
			health++
		}
	}
	if health != 2 {
		t.Fatalf("%d health samples in the merged timeline, want both nodes'", health)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.md")); err != nil {
		t.Fatalf("no reports written: %v", err)
	}
	if _, err := runCLIOut(t, "report", "merge", a, b, "--out", out); err == nil || !strings.Contains(err.Error(), "already holds a timeline") {
		t.Fatalf("merging into a directory with a timeline: %v", err)
	}
	if _, err := runCLIOut(t, "report", "merge", a, b); err == nil || !strings.Contains(err.Error(), "needs --out") {
		t.Fatalf("without --out: %v", err)
	}
}
