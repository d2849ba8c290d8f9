package lbproxy

import (
	"context"
	"net"
	"sync"
	"time"
)

// Drain is what a cloud's load balancer does with the connections a
// backend holds when the backend is deregistered or fails its check: a
// classic ELB without connection draining closes them at once (Timeout
// zero); with it, those to a deregistered backend may finish within
// Timeout and are then closed, and those to a backend found unhealthy
// finish, with no limit (ELB's "Configure connection draining for your
// Classic Load Balancer").
type Drain struct {
	Timeout time.Duration
}

// relayed are a backend's open connections, each as its two ends.
type relayed struct {
	mu    sync.Mutex
	pairs map[*pair]struct{}
	// cut: the backend left with its connections closed at once; one
	// dialled as it left is closed as it is added.
	cut bool
}

type pair struct{ client, upstream net.Conn }

// add holds a relayed connection until the returned func is called.
func (r *relayed) add(client, upstream net.Conn) (done func()) {
	p := &pair{client, upstream}
	r.mu.Lock()
	if r.cut {
		r.mu.Unlock()
		abort(client)
		_ = upstream.Close()
		return func() {}
	}
	if r.pairs == nil {
		r.pairs = map[*pair]struct{}{}
	}
	r.pairs[p] = struct{}{}
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.pairs, p)
		r.mu.Unlock()
	}
}

// closeAll closes both ends of every connection open now: the client
// sees its connection reset, as an in-flight request ELB drops. With for
// good, a connection added later is closed too (the backend is gone).
func (r *relayed) closeAll(forGood bool) {
	r.mu.Lock()
	r.cut = r.cut || forGood
	open := make([]*pair, 0, len(r.pairs))
	for p := range r.pairs {
		open = append(open, p)
	}
	r.mu.Unlock()
	for _, p := range open {
		abort(p.client)
		_ = p.upstream.Close()
	}
}

// abort closes c so that its peer sees a reset, not an orderly end: a
// request cut short must not read as a complete answer.
func abort(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}

// leave applies d to b's connections as b is deregistered (removed) or
// found unhealthy; a drain's deadline ends with ctx, the proxy's life.
func (b *backend) leave(ctx context.Context, d *Drain, removed bool) {
	switch {
	case d == nil:
	case d.Timeout == 0:
		b.conns.closeAll(removed)
	case removed:
		t := time.AfterFunc(d.Timeout, func() { b.conns.closeAll(true) })
		context.AfterFunc(ctx, func() { t.Stop() })
	}
}
