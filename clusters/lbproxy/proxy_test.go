package lbproxy

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// echoServer answers each line with its own name, so a client sees which
// backend served it.
func echoServer(t *testing.T, name string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					fmt.Fprintln(c, name)
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func startProxy(t *testing.T, cfg Config, backends ...string) (*Proxy, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	p := New(ctx, cfg)
	p.SetBackends(backends)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go p.Serve(ctx, ln)
	return p, ln.Addr().String()
}

func ask(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintln(c, "hi")
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("reading via proxy: %v", err)
	}
	return strings.TrimSpace(line)
}

func waitHealthy(t *testing.T, p *Proxy, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		healthy := 0
		for _, s := range p.Status() {
			if s.Healthy {
				healthy++
			}
		}
		if healthy == n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("want %d healthy backends, have %+v", n, p.Status())
}

var fast = Config{CheckInterval: 20 * time.Millisecond, UnhealthyThreshold: 1}

func TestRoundRobinAndReplace(t *testing.T) {
	a, b := echoServer(t, "a"), echoServer(t, "b")
	p, addr := startProxy(t, fast, a, b)
	waitHealthy(t, p, 2)
	seen := map[string]int{}
	for i := 0; i < 10; i++ {
		seen[ask(t, addr)]++
	}
	if seen["a"] == 0 || seen["b"] == 0 {
		t.Fatalf("not balanced: %v", seen)
	}
	p.SetBackends([]string{b})
	for i := 0; i < 5; i++ {
		if got := ask(t, addr); got != "b" {
			t.Fatalf("removed backend still served: %s", got)
		}
	}
}

func TestUnhealthyBackendSkipped(t *testing.T) {
	a := echoServer(t, "a")
	dead := "127.0.0.1:1" // nothing listens there
	p, addr := startProxy(t, fast, a, dead)
	waitHealthy(t, p, 1)
	for i := 0; i < 6; i++ {
		if got := ask(t, addr); got != "a" {
			t.Fatalf("got %q", got)
		}
	}
}

func TestOpenConnectionSurvivesRemoval(t *testing.T) {
	a, b := echoServer(t, "a"), echoServer(t, "b")
	p, addr := startProxy(t, fast, a)
	waitHealthy(t, p, 1)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	fmt.Fprintln(c, "1")
	if l, _ := r.ReadString('\n'); strings.TrimSpace(l) != "a" {
		t.Fatalf("first answer %q", l)
	}
	p.SetBackends([]string{b})
	fmt.Fprintln(c, "2")
	if l, err := r.ReadString('\n'); err != nil || strings.TrimSpace(l) != "a" {
		t.Fatalf("open connection broken by removal: %q %v", l, err)
	}
}

// tryAsk is ask without failing: the backend's answer, or "" when the
// connection was closed without one.
func tryAsk(t *testing.T, addr string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	fmt.Fprintln(c, "hi")
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSpace(line)
}

// Strict, as a cloud's load balancer: with no backend in service a
// connection is closed rather than tried on the failing ones, and a
// backend in service that refuses it is not replaced by another.
func TestStrictSendsOnlyToOneHealthyBackend(t *testing.T) {
	a := echoServer(t, "a")
	dead := deadAddress(t)
	never := func(context.Context, string) error { return fmt.Errorf("failing") }
	cfg := Config{CheckInterval: 50 * time.Millisecond, Check: never, Strict: true}
	p, addr := startProxy(t, cfg, a)
	time.Sleep(200 * time.Millisecond)
	if got := tryAsk(t, addr); got != "" {
		t.Fatalf("no backend in service, yet %q answered", got)
	}
	// Every backend passes its check, the dead one too (its check port
	// answers while its traffic port does not): about half the
	// connections reach it and fail, none is retried on a.
	cfg.Check = func(context.Context, string) error { return nil }
	p.Reconfigure(cfg, true)
	p.SetBackends([]string{a, dead})
	waitHealthy(t, p, 2)
	failed := 0
	for i := 0; i < 10; i++ {
		if tryAsk(t, addr) == "" {
			failed++
		}
	}
	if failed == 0 || failed == 10 {
		t.Errorf("%d of 10 connections failed: want those sent to the dead backend alone", failed)
	}
}

// deadAddress is an address nothing listens on.
func deadAddress(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// IntervalFromStart: a check that takes as long as the interval is run
// back to back, not an interval after it ends.
func TestIntervalFromStartDoesNotWaitOutTheCheck(t *testing.T) {
	count := func(fromStart bool) int {
		var mu sync.Mutex
		n := 0
		slow := func(ctx context.Context, _ string) error {
			mu.Lock()
			n++
			mu.Unlock()
			time.Sleep(300 * time.Millisecond)
			return nil
		}
		ctx, cancel := context.WithCancel(context.Background())
		p := New(ctx, Config{CheckInterval: 300 * time.Millisecond, CheckTimeout: time.Second, Check: slow, IntervalFromStart: fromStart})
		p.SetBackends([]string{"127.0.0.1:1"})
		time.Sleep(1800 * time.Millisecond)
		cancel()
		mu.Lock()
		defer mu.Unlock()
		return n
	}
	var fromStart, fromEnd int
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); fromStart = count(true) }()
	go func() { defer wg.Done(); fromEnd = count(false) }()
	wg.Wait()
	if fromStart <= fromEnd {
		t.Errorf("checks in 1.8 s: %d from each start, %d from each end; want more from each start", fromStart, fromEnd)
	}
}
