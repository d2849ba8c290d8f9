package timeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// observation is an observer on node whose clock is skew ahead, started
// late after t0: its first lists, two changes of the cluster it watched,
// and its node's manager sampled.
func observation(node string, late, skew time.Duration) Observation {
	at := func(d time.Duration) time.Time { return t0.Add(d + skew) }
	evs := []Event{
		{Time: at(late), Source: "observer", Kind: ObserverStart, Attrs: map[string]string{FixedManagers: "kube-controller-manager@" + node}},
		{Time: at(late + 50*time.Millisecond), Source: "lease", Kind: Lease, Attrs: map[string]string{"lease": "kube-controller-manager", "holder": "cp-1_a"}},
		{Time: at(late + 60*time.Millisecond), Source: "nodes", Kind: NodeAdded, Node: "cp-1"},
		{Time: at(20 * time.Second), Source: "lease", Kind: Lease, Attrs: map[string]string{"lease": "kube-controller-manager", "holder": "cp-2_b"}},
		{Time: at(30*time.Second + 4*time.Millisecond), Source: "nodes", Kind: NodeChanged, Node: "cp-1", Attrs: map[string]string{"taints": "x"}},
		{Time: at(15 * time.Second), Source: "health", Kind: Health, Manager: "kube-controller-manager", Instance: node, Attrs: map[string]string{"up": "true"}},
		{Time: at(40 * time.Second), Source: "observer", Kind: ObserverStop},
	}
	return Observation{Name: node + "/timeline.jsonl", Events: evs}
}

func TestMergeSetsEachClockByTheChangesBothWatched(t *testing.T) {
	m, err := Merge([]Observation{observation("cp-1", 0, 0), observation("cp-2", 2*time.Second, 300*time.Millisecond)}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Offsets) != 1 || m.Offsets[0].Matched != 2 || m.Offsets[0].Offset != 300*time.Millisecond {
		t.Fatalf("offsets %v, want cp-2 +300ms from its two shared changes", m.Offsets)
	}
	var health []Event
	starts, stops, api := 0, 0, 0
	for _, e := range m.Events {
		switch e.Kind {
		case Health:
			health = append(health, e)
		case ObserverStart:
			starts++
			if e.Attrs[FixedManagers] != "kube-controller-manager@cp-1,kube-controller-manager@cp-2" {
				t.Errorf("observer.start names %q, want both nodes' managers", e.Attrs[FixedManagers])
			}
		case ObserverStop:
			stops++
		case Lease, NodeAdded, NodeChanged:
			api++
		}
	}
	if api != 4 {
		t.Errorf("%d events of the API, want the first observer's 4 alone", api)
	}
	if starts != 1 || stops != 1 || len(health) != 2 || !health[1].Time.Equal(t0.Add(15*time.Second)) {
		t.Fatalf("%d starts, %d stops, health %+v: want one of each and cp-2's sample at its place on cp-1's clock", starts, stops, health)
	}
	// The merged timeline is one a reader takes.
	var b bytes.Buffer
	for _, e := range m.Events {
		line, _ := json.Marshal(e)
		b.Write(append(line, '\n'))
	}
	if _, err := Read(&b); err != nil {
		t.Fatalf("the merged timeline does not read back: %v", err)
	}
}

func TestMergeRefusesWhatItCannotPlace(t *testing.T) {
	quiet := observation("cp-2", 0, 0)
	quiet.Events = []Event{quiet.Events[0], quiet.Events[5], quiet.Events[6]}
	if _, err := Merge([]Observation{observation("cp-1", 0, 0), quiet}, time.Second); err == nil || !strings.Contains(err.Error(), "share no change") {
		t.Fatalf("no shared change: %v", err)
	}
	spread := observation("cp-2", 0, 0)
	spread.Events[4].Time = spread.Events[4].Time.Add(3 * time.Second) // one change seen 3 s late
	if _, err := Merge([]Observation{observation("cp-1", 0, 0), spread}, time.Second); err == nil || !strings.Contains(err.Error(), "clock tolerance") {
		t.Fatalf("a spread wider than the tolerance: %v", err)
	}
	if _, err := Merge([]Observation{observation("cp-1", 0, 0)}, time.Second); err == nil {
		t.Fatal("one observation merged")
	}
}
