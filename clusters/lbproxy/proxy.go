package lbproxy

import (
	"context"
	"io"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// Checker probes one backend address; nil means healthy.
type Checker func(ctx context.Context, address string) error

// Config tunes health checking and dialing. Zero values get defaults.
type Config struct {
	ConnectTimeout     time.Duration
	CheckInterval      time.Duration
	CheckTimeout       time.Duration
	UnhealthyThreshold int
	HealthyThreshold   int
	Check              Checker // nil: a TCP connect check
	// Strict sends each connection to one healthy backend only, as a
	// cloud's load balancer does: with none healthy the connection is
	// closed, and a backend that refuses it is not replaced by another.
	// Unset, a connection tries each healthy backend in turn, and every
	// backend when none is healthy (better a try than a certain refusal).
	Strict bool
	// IntervalFromStart runs CheckInterval from one check's start to the
	// next's (ELB's "interval between health checks of an individual
	// instance"), so a check waiting out its timeout does not push the
	// next back. Unset, it runs from a check's end (envoy's interval).
	IntervalFromStart bool
	// Dial opens a connection to a backend (nil: a TCP dial given
	// ConnectTimeout).
	Dial func(ctx context.Context, address string) (net.Conn, error)
	// OnLeave is what becomes of the connections a backend holds when it
	// leaves the set or fails its check (drain.go); nil leaves them to
	// run until their ends close them.
	OnLeave *Drain
}

func (c *Config) defaults() {
	if c.ConnectTimeout == 0 {
		c.ConnectTimeout = 250 * time.Millisecond
	}
	if c.CheckInterval == 0 {
		c.CheckInterval = 2 * time.Second
	}
	if c.CheckTimeout == 0 {
		c.CheckTimeout = 3 * time.Second
	}
	if c.UnhealthyThreshold == 0 {
		c.UnhealthyThreshold = 2
	}
	if c.HealthyThreshold == 0 {
		c.HealthyThreshold = 1
	}
	if c.Check == nil {
		c.Check = TCPCheck
	}
	if c.Dial == nil {
		d := net.Dialer{Timeout: c.ConnectTimeout}
		c.Dial = func(ctx context.Context, address string) (net.Conn, error) { return d.DialContext(ctx, "tcp", address) }
	}
}

// BackendStatus is a point-in-time view of one backend.
type BackendStatus struct {
	Address string
	Healthy bool
	Active  int64 // open relayed connections
}

type backend struct {
	address   string
	healthy   atomic.Bool
	active    atomic.Int64
	conns     relayed
	fails     int
	successes int
	stop      context.CancelFunc
	kick      chan struct{} // check now: the health check changed
}

// Proxy relays connections to a replaceable set of backends.
type Proxy struct {
	cfg      Config
	mu       sync.Mutex
	backends []*backend
	next     atomic.Uint64
	ctx      context.Context
}

// New returns a proxy whose health checks live as long as ctx.
func New(ctx context.Context, cfg Config) *Proxy {
	cfg.defaults()
	return &Proxy{cfg: cfg, ctx: ctx}
}

// SetBackends replaces the backend set. Addresses already known keep their
// health state; new ones start unhealthy until their first passing check.
func (p *Proxy) SetBackends(addresses []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	old := map[string]*backend{}
	for _, b := range p.backends {
		old[b.address] = b
	}
	var next []*backend
	for _, a := range dedupe(addresses) {
		if b, ok := old[a]; ok {
			next = append(next, b)
			delete(old, a)
			continue
		}
		b := &backend{address: a, kick: make(chan struct{}, 1)}
		ctx, cancel := context.WithCancel(p.ctx)
		b.stop = cancel
		go p.watch(ctx, b)
		next = append(next, b)
	}
	for _, b := range old {
		b.stop()
		b.leave(p.ctx, p.cfg.OnLeave, true)
	}
	p.backends = next
}

// Status reports every backend, sorted by address.
func (p *Proxy) Status() []BackendStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]BackendStatus, 0, len(p.backends))
	for _, b := range p.backends {
		out = append(out, BackendStatus{Address: b.address, Healthy: b.healthy.Load(), Active: b.active.Load()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

// Serve accepts connections on ln until ctx ends.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return err
		}
		go p.relay(conn)
	}
}

// Reconfigure changes health checking and dialling: each backend keeps
// its state and, with checkNow (the check itself changed), is checked at
// once, then at the new interval.
func (p *Proxy) Reconfigure(cfg Config, checkNow bool) {
	cfg.defaults()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cfg = cfg
	if !checkNow {
		return
	}
	for _, b := range p.backends {
		select {
		case b.kick <- struct{}{}:
		default: // a check is due already
		}
	}
}

// config is the current configuration.
func (p *Proxy) config() Config {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cfg
}

// candidates orders backends for one connection: healthy ones round robin;
// if none is healthy, every backend unless Strict. Strict, only the first
// is tried.
func (p *Proxy) candidates() []*backend {
	p.mu.Lock()
	all := append([]*backend(nil), p.backends...)
	strict := p.cfg.Strict
	p.mu.Unlock()
	var healthy []*backend
	for _, b := range all {
		if b.healthy.Load() {
			healthy = append(healthy, b)
		}
	}
	if len(healthy) == 0 && !strict {
		healthy = all
	}
	if len(healthy) == 0 {
		return nil
	}
	start := int(p.next.Add(1) % uint64(len(healthy)))
	ordered := append(healthy[start:], healthy[:start]...)
	if strict {
		return ordered[:1]
	}
	return ordered
}

func (p *Proxy) relay(client net.Conn) {
	defer client.Close()
	cfg := p.config()
	for _, b := range p.candidates() {
		ctx, cancel := context.WithTimeout(p.ctx, cfg.ConnectTimeout)
		upstream, err := cfg.Dial(ctx, b.address)
		cancel()
		if err != nil {
			continue
		}
		b.active.Add(1)
		done := b.conns.add(client, upstream)
		pipe(client, upstream)
		done()
		b.active.Add(-1)
		return
	}
}

// pipe copies both ways, propagating half-closes, until both sides finish.
func pipe(a, b net.Conn) {
	defer b.Close()
	var wg sync.WaitGroup
	wg.Add(2)
	copyHalf := func(dst, src net.Conn) {
		defer wg.Done()
		_, _ = io.Copy(dst, src)
		if cw, ok := dst.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		} else {
			_ = dst.Close()
		}
	}
	go copyHalf(a, b)
	go copyHalf(b, a)
	wg.Wait()
}

func (p *Proxy) watch(ctx context.Context, b *backend) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-b.kick:
			t.Stop()
		}
		cfg := p.config()
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, cfg.CheckTimeout)
		err := cfg.Check(cctx, b.address)
		cancel()
		p.record(b, err == nil, cfg)
		next := cfg.CheckInterval
		if cfg.IntervalFromStart {
			next = max(0, next-time.Since(start))
		}
		t.Reset(next)
	}
}

func (p *Proxy) record(b *backend, ok bool, cfg Config) {
	if ok {
		b.fails = 0
		b.successes++
		if b.successes >= cfg.HealthyThreshold {
			b.healthy.Store(true)
		}
		return
	}
	b.successes = 0
	b.fails++
	if b.fails >= cfg.UnhealthyThreshold && b.healthy.Swap(false) {
		b.leave(p.ctx, cfg.OnLeave, false)
	}
}

// TCPCheck passes when a TCP connection can be opened.
func TCPCheck(ctx context.Context, address string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", address)
	if err != nil {
		return err
	}
	return c.Close()
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
