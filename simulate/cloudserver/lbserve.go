package cloudserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/handover-sh/handover/clusters/lbproxy"
)

// LBServer runs inside a load-balancer container: one TCP listener per
// configured port, backends replaced in place when the configuration file
// changes, so the load balancer keeps its address and open connections.
type LBServer struct {
	Path string
	Logf func(format string, args ...any)

	proxies map[int32]*lbproxy.Proxy
	last    [32]byte
}

// Run polls the configuration until ctx ends.
func (s *LBServer) Run(ctx context.Context, interval time.Duration) {
	s.proxies = map[int32]*lbproxy.Proxy{}
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
	for _, l := range cfg.Listeners {
		if l.Protocol != "TCP" && l.Protocol != "" {
			s.Logf("port %d: protocol %s is not supported, skipped", l.Port, l.Protocol)
			continue
		}
		if err := s.apply(ctx, l); err != nil {
			return err
		}
	}
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
		p = lbproxy.New(ctx, lbproxy.Config{CheckInterval: time.Second})
		s.proxies[l.Port] = p
		go func() {
			if err := p.Serve(ctx, ln); err != nil {
				s.Logf("port %d: %v", l.Port, err)
			}
		}()
	}
	p.SetBackends(l.Backends)
	s.Logf("port %d -> %v", l.Port, l.Backends)
	return nil
}
