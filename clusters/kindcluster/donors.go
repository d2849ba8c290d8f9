package kindcluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	"sigs.k8s.io/kind/pkg/cluster/nodes"
)

// Joins and removals run concurrently during a rehearsal (the load joins
// workers while the procedure replaces control planes), so a join must not
// copy from a control plane being removed or still joining (it has no
// admin.conf yet), and a removal must wait for the joins copying from it. The book is per process, like the engine's cache:
// every handle on a cluster in this process shares it.
var book = newDonorBook()

type donorBook struct {
	mu       sync.Mutex
	leaving  map[string]bool // node -> being removed
	arriving map[string]bool // node -> still joining
	using    map[string]int  // node -> joins copying from it
	changed  chan struct{}   // closed and replaced on every release
}

func newDonorBook() *donorBook {
	return &donorBook{leaving: map[string]bool{}, arriving: map[string]bool{}, using: map[string]int{}, changed: make(chan struct{})}
}

// arrive marks a node as joining until done is called.
func (b *donorBook) arrive(name string) (done func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.arriving[name] = true
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.arriving, name)
	}
}

// pickDonor reserves the newest control plane neither being removed (the
// procedures remove the oldest first) nor still joining; release it when
// the join is done.
func (b *donorBook) pickDonor(cps []nodes.Node) (nodes.Node, func(), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(cps) - 1; i >= 0; i-- {
		name := cps[i].String()
		if b.leaving[name] || b.arriving[name] {
			continue
		}
		b.using[name]++
		return cps[i], func() { b.release(name) }, nil
	}
	return nil, nil, fmt.Errorf("every control plane is being removed or still joining: none to join from")
}

func (b *donorBook) release(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.using[name]--; b.using[name] <= 0 {
		delete(b.using, name)
	}
	close(b.changed)
	b.changed = make(chan struct{})
}

// leave marks a node as being removed and waits, up to limit, for the joins
// copying from it; undo clears the mark.
func (b *donorBook) leave(ctx context.Context, name string, limit time.Duration) (undo func(), err error) {
	b.mu.Lock()
	b.leaving[name] = true
	b.mu.Unlock()
	undo = func() {
		b.mu.Lock()
		delete(b.leaving, name)
		b.mu.Unlock()
	}
	deadline := time.After(limit)
	for {
		b.mu.Lock()
		n, changed := b.using[name], b.changed
		b.mu.Unlock()
		if n == 0 {
			return undo, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			undo()
			return nil, ctx.Err()
		case <-deadline:
			undo()
			return nil, fmt.Errorf("%d node join(s) still copying from %s after %s", n, name, limit)
		}
	}
}

func (b *donorBook) isLeaving(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.leaving[name]
}
