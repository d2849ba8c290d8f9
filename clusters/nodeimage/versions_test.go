package nodeimage

import (
	"slices"
	"testing"
)

func TestPairs(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"v1.30.14", "v1.31.4", true},   // N → N+1
		{"v1.30.14", "v1.30.14", true},  // N → N
		{"v1.29.15", "v1.30.14", true},  // N → N+1 one minor lower
		{"v1.29.15", "v1.31.4", false},  // two minors
		{"v1.31.4", "v1.30.14", false},  // backwards, and 1.31 has no in-tree provider
		{"v1.31.4", "v1.31.4", false},   // nothing to migrate from
		{"v1.30.14", "v1.32.99", false}, // not a release
	} {
		if got := PairOK(c.from, c.to); got != c.ok {
			t.Errorf("PairOK(%s, %s) = %v, want %v", c.from, c.to, got, c.ok)
		}
	}
	for _, p := range []string{"v1.30.14 → v1.31.4", "v1.29.15 → v1.29.15"} {
		if !slices.Contains(Pairs(), p) {
			t.Errorf("Pairs() = %v lacks %s", Pairs(), p)
		}
	}
}
