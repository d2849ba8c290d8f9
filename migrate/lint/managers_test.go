package lint

import (
	"testing"

	observed "github.com/handover-sh/handover/clusters/managers"
)

// The observers read pre-1.28 names off /healthz and /metrics with their own
// table; it must say what the lint's does.
func TestObserversReadTheShortNames(t *testing.T) {
	if len(observed.ShortNames) != len(shortNames) {
		t.Errorf("observers know %d short names, the lint %d", len(observed.ShortNames), len(shortNames))
	}
	for canonical, short := range shortNames {
		if got := observed.ShortNames[short]; got != canonical {
			t.Errorf("observers read %q as %q, the lint as %q", short, got, canonical)
		}
	}
}
