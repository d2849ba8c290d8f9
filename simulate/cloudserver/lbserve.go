package cloudserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"reflect"
	"strconv"
	"time"

	"github.com/handover-sh/handover/clusters/lbproxy"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// LBServer runs inside a load-balancer container: one TCP listener per
// configured port, backends replaced in place when the configuration file
// changes, so the load balancer keeps its address and open connections. A
// port the configuration no longer has stops listening (its open
// connections run on until they close); a configuration with no ports
// listens on nothing: a reserved address.
type LBServer struct {
	Path string
	Logf func(format string, args ...any)

	proxies map[int32]*served
	last    [32]byte
	health  lbproxy.Config   // the listeners' health checking
	check   *api.HealthCheck // the check it runs, as configured
}

// served is one port's proxy, and what stops its listener.
type served struct {
	proxy *lbproxy.Proxy
	stop  context.CancelFunc
}

// Run polls the configuration until ctx ends.
func (s *LBServer) Run(ctx context.Context, interval time.Duration) {
	s.proxies = map[int32]*served{}
	for {
		if err := s.reload(ctx); err != nil {
			s.Logf("configuration not applied: %v", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}

func (s *LBServer) reload(ctx context.Context) error {
	raw, err := os.ReadFile(s.Path)
	if os.IsNotExist(err) {
		return nil // not configured yet
	}
	if err != nil {
		return err
	}
	sum := sha256.Sum256(raw)
	if sum == s.last {
		return nil
	}
	var cfg LBConfig
	if err := json.Unmarshal(raw, &cfg); err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	checkNow := !reflect.DeepEqual(cfg.HealthCheck, s.check)
	s.health, s.check = healthConfig(cfg.HealthCheck, dropping(cfg.Dropped)), cfg.HealthCheck
	s.health.OnLeave = onLeave(cfg.Draining)
	for _, p := range s.proxies {
		p.proxy.Reconfigure(s.health, checkNow)
	}
	kept := map[int32]bool{}
	for _, l := range cfg.Listeners {
		if l.Protocol != "TCP" && l.Protocol != "" {
			s.Logf("port %d: protocol %s is not supported, skipped", l.Port, l.Protocol)
			continue
		}
		if err := s.apply(ctx, l); err != nil {
			return err
		}
		kept[l.Port] = true
	}
	s.closeAllBut(kept)
	s.last = sum
	return nil
}

func (s *LBServer) apply(ctx context.Context, l LBListener) error {
	p, ok := s.proxies[l.Port]
	if !ok {
		ln, err := net.Listen("tcp", ":"+strconv.Itoa(int(l.Port)))
		if err != nil {
			return fmt.Errorf("listening on %d: %w", l.Port, err)
		}
		pctx, stop := context.WithCancel(ctx)
		p = &served{proxy: lbproxy.New(pctx, s.health), stop: stop}
		s.proxies[l.Port] = p
		go func() {
			if err := p.proxy.Serve(pctx, ln); err != nil {
				s.Logf("port %d: %v", l.Port, err)
			}
		}()
	}
	p.proxy.SetBackends(l.Backends)
	s.Logf("port %d -> %v", l.Port, l.Backends)
	return nil
}

// closeAllBut stops listening on every port not kept.
func (s *LBServer) closeAllBut(kept map[int32]bool) {
	for port, p := range s.proxies {
		if !kept[port] {
			p.stop()
			delete(s.proxies, port)
			s.Logf("port %d closed", port)
		}
	}
}

// healthConfig is how the listeners check their backends: the simulated
// provider's quick TCP check of each backend (every second, two failures
// out, one pass in, a connection tried on each backend in turn), or, with
// a cloud's health check, that check of each backend's node as configured
// and traffic only to nodes in service (lbproxy.Config.Strict).
//
// Traffic the network drops (a node address:port in drop) is lost as a
// dropped packet is: a check there fails by its timeout, a connection
// there is never opened.
func healthConfig(hc *api.HealthCheck, drop dropped) lbproxy.Config {
	if hc == nil {
		return lbproxy.Config{CheckInterval: time.Second, Check: drop.check(lbproxy.TCPCheck), Dial: drop.dial()}
	}
	port := strconv.Itoa(int(hc.Port))
	check := lbproxy.TCPCheck
	if hc.Protocol == "HTTP" {
		check = lbproxy.HTTPCheck(hc.Path, false)
	}
	check = drop.check(check)
	return lbproxy.Config{
		CheckInterval: time.Duration(hc.Interval) * time.Second, CheckTimeout: time.Duration(hc.Timeout) * time.Second,
		HealthyThreshold: int(hc.Healthy), UnhealthyThreshold: int(hc.Unhealthy), Strict: true, IntervalFromStart: true,
		Check: func(ctx context.Context, backend string) error {
			host, _, err := net.SplitHostPort(backend)
			if err != nil {
				return err
			}
			return check(ctx, net.JoinHostPort(host, port))
		},
		Dial: drop.dial(),
	}
}

// onLeave is the listeners' connection draining: off closes a leaving
// backend's connections at once, on lets them finish (a removed backend's
// within the timeout); unset leaves them.
func onLeave(d *api.Draining) *lbproxy.Drain {
	switch {
	case d == nil:
		return nil
	case !d.Enabled:
		return &lbproxy.Drain{}
	}
	return &lbproxy.Drain{Timeout: time.Duration(d.Timeout) * time.Second}
}

// dropped are the address:port pairs the network drops traffic to.
type dropped map[string]bool

func dropping(pairs []string) dropped {
	d := dropped{}
	for _, p := range pairs {
		d[p] = true
	}
	return d
}

// check is c but where traffic is dropped: no answer comes, so the
// check fails when its time is up.
func (d dropped) check(c lbproxy.Checker) lbproxy.Checker {
	return func(ctx context.Context, address string) error {
		if d[address] {
			<-ctx.Done()
			return fmt.Errorf("%s: no answer (the network drops the load balancer's traffic there)", address)
		}
		return c(ctx, address)
	}
}

// dial opens a TCP connection but where traffic is dropped, where it
// waits out its time and fails.
func (d dropped) dial() func(context.Context, string) (net.Conn, error) {
	var dialer net.Dialer
	return func(ctx context.Context, address string) (net.Conn, error) {
		if d[address] {
			<-ctx.Done()
			return nil, fmt.Errorf("%s: no answer (the network drops the load balancer's traffic there)", address)
		}
		return dialer.DialContext(ctx, "tcp", address)
	}
}
