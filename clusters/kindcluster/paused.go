package kindcluster

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/handover-sh/handover/waits"
)

// whilePaused runs f again while the node is frozen (`docker pause`, as
// the cp-node-stop fault does): to a machine that stopped responding a
// command hangs until it comes back, it does not fail at once. Any other
// error, or a node frozen longer than the node-frozen wait, is returned.
func whilePaused(ctx context.Context, f func() error) error {
	limit := waits.Of(ctx, WaitNodeFrozen)
	deadline := time.Now().Add(limit)
	for {
		err := f()
		if err == nil || !isPaused(err) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node frozen for over %s: %w", limit, err)
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
	}
}

// isPaused recognises Docker's refusal to exec in a paused container.
func isPaused(err error) bool {
	return strings.Contains(err.Error(), "is paused, unpause the container")
}
