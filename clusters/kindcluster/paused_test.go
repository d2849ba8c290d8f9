package kindcluster

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/handover-sh/handover/waits"
)

func TestWhilePausedRetriesOnlyAFrozenNode(t *testing.T) {
	paused := errors.New(`Error response from daemon: Container cp3 is paused, unpause the container before exec`)
	calls := 0
	err := whilePaused(context.Background(), func() error {
		if calls++; calls < 2 {
			return paused
		}
		return nil
	})
	if err != nil || calls != 2 {
		t.Fatalf("frozen once: err %v after %d calls, want nil after 2", err, calls)
	}
	other := errors.New("exit status 1: no such file")
	calls = 0
	if err := whilePaused(context.Background(), func() error { calls++; return other }); !errors.Is(err, other) || calls != 1 {
		t.Fatalf("another error: %v after %d calls, want it at once", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := whilePaused(ctx, func() error { return paused }); !errors.Is(err, paused) {
		t.Fatalf("cancelled while frozen: %v", err)
	}
}

// The node-frozen wait is the run's (a rehearsal file's intervals:), not a
// constant: a node frozen beyond it is an error saying how long it waited.
func TestWhilePausedWaitsAsLongAsTheRunSays(t *testing.T) {
	paused := errors.New(`Error response from daemon: Container cp3 is paused, unpause the container before exec`)
	ctx := waits.WithOverrides(context.Background(), map[string]time.Duration{WaitNodeFrozen: time.Millisecond})
	start := time.Now()
	err := whilePaused(ctx, func() error { return paused })
	if !errors.Is(err, paused) || !strings.Contains(err.Error(), "node frozen for over 1ms") || time.Since(start) > 10*time.Second {
		t.Fatalf("frozen beyond 1ms: %v after %s", err, time.Since(start))
	}
}
