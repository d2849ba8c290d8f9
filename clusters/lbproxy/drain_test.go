package lbproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// held is a client connection through the proxy that has been answered
// once and stays open.
func held(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	r := bufio.NewReader(c)
	fmt.Fprintln(c, "hi")
	if _, err := r.ReadString('\n'); err != nil {
		t.Fatalf("first answer: %v", err)
	}
	return c, r
}

// cut says whether the held connection was closed by the proxy within d.
func cut(c net.Conn, r *bufio.Reader, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := r.ReadString('\n')
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// Deregistered without connection draining, a backend's open connections
// are closed at once; with it, after the timeout; with no OnLeave (the
// simulated provider's own balancer) they run on.
func TestDeregistrationClosesOrDrains(t *testing.T) {
	for name, tc := range map[string]struct {
		drain    *Drain
		soon     bool // closed within 300 ms
		eventual bool // closed within 1.5 s
	}{
		"draining off": {&Drain{}, true, true},
		"draining 1s":  {&Drain{Timeout: time.Second}, false, true},
		"no OnLeave":   {nil, false, false},
	} {
		t.Run(name, func(t *testing.T) {
			a := echoServer(t, "a")
			p, addr := startProxy(t, Config{CheckInterval: 50 * time.Millisecond, OnLeave: tc.drain}, a)
			waitHealthy(t, p, 1)
			c, r := held(t, addr)
			p.SetBackends(nil)
			if got := cut(c, r, 300*time.Millisecond); got != tc.soon {
				t.Fatalf("closed within 300 ms: %v, want %v", got, tc.soon)
			}
			if tc.soon {
				return
			}
			if got := cut(c, r, 1500*time.Millisecond); got != tc.eventual {
				t.Errorf("closed within 1.8 s: %v, want %v", got, tc.eventual)
			}
		})
	}
}

// A backend that fails its check loses its connections without
// draining; with draining they finish.
func TestUnhealthyClosesWithoutDraining(t *testing.T) {
	for name, tc := range map[string]struct {
		drain *Drain
		cut   bool
	}{
		"draining off": {&Drain{}, true},
		"draining on":  {&Drain{Timeout: time.Minute}, false},
	} {
		t.Run(name, func(t *testing.T) {
			a := echoServer(t, "a")
			var failing atomic.Bool
			check := func(ctx context.Context, address string) error {
				if failing.Load() {
					return errors.New("check fails")
				}
				return nil
			}
			p, addr := startProxy(t, Config{CheckInterval: 50 * time.Millisecond, Check: check, OnLeave: tc.drain}, a)
			waitHealthy(t, p, 1)
			c, r := held(t, addr)
			failing.Store(true)
			waitHealthy(t, p, 0)
			// Over a dozen check intervals: an unhealthy backend's
			// connections are cut once, at once, or never.
			if got := cut(c, r, 600*time.Millisecond); got != tc.cut {
				t.Fatalf("closed: %v, want %v", got, tc.cut)
			}
			if tc.cut {
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(time.Second))
			fmt.Fprintln(c, "again")
			if _, err := r.ReadString('\n'); err != nil {
				t.Errorf("a drained connection no longer relays: %v", err)
			}
		})
	}
}

// A connection dialled while its backend was deregistered without
// draining is closed as it is added, not left to run.
func TestAddedAfterTheCutIsClosed(t *testing.T) {
	var r relayed
	r.closeAll(true)
	client, clientPeer := net.Pipe()
	upstream, upstreamPeer := net.Pipe()
	defer clientPeer.Close()
	defer upstreamPeer.Close()
	r.add(client, upstream)()
	for name, peer := range map[string]net.Conn{"client": clientPeer, "upstream": upstreamPeer} {
		_ = peer.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := peer.Read(make([]byte, 1)); err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("the %s end stayed open: %v", name, err)
		}
	}
}
