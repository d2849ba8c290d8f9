package kindcluster

import (
	"context"
	"errors"
	"testing"
	"time"
)

// retryRoles tries until f succeeds or its tries are spent, and gives up
// as soon as its context ends, with the last error.
func TestRetryRolesHonoursItsContext(t *testing.T) {
	flake := errors.New(`reading the role of node "c-worker3": no such container`)
	calls := 0
	failing := func() (string, error) { calls++; return "", flake }

	v, err := retryRoles(context.Background(), retries{tries: 3, every: time.Millisecond}, func() (string, error) {
		if calls++; calls < 3 {
			return "", flake
		}
		return "kubeconfig", nil
	})
	if v != "kubeconfig" || err != nil || calls != 3 {
		t.Fatalf("a read that succeeds at the third try: %q, %v after %d calls", v, err, calls)
	}

	calls = 0
	if _, err := retryRoles(context.Background(), retries{tries: 3, every: time.Millisecond}, failing); !errors.Is(err, flake) || calls != 3 {
		t.Fatalf("tries spent: %v after %d calls", err, calls)
	}

	calls = 0
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	_, err = retryRoles(ctx, retries{tries: 5, every: time.Hour}, failing)
	if !errors.Is(err, context.Canceled) || !errors.Is(err, flake) || calls != 1 || time.Since(start) > time.Second {
		t.Fatalf("a context ended: %v after %d calls in %s", err, calls, time.Since(start))
	}
}
