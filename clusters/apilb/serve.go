package apilb

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/handover-sh/handover/clusters/lbproxy"
)

// Server serves kind's balancer configuration, re-reading it when it changes.
type Server struct {
	Bootstrap Bootstrap
	Logf      func(format string, args ...any)
	proxy     *lbproxy.Proxy
	listening string
	cdsHash   [32]byte
}

// Run loads the configuration, then polls it every interval until ctx ends.
func (s *Server) Run(ctx context.Context, interval time.Duration) error {
	go s.serveAdmin(ctx)
	for {
		if err := s.reload(ctx); err != nil {
			s.Logf("config not applied: %v", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(interval):
		}
	}
}

func (s *Server) reload(ctx context.Context) error {
	cdsRaw, err := os.ReadFile(s.Bootstrap.CDSPath)
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(cdsRaw); sum != s.cdsHash || s.proxy == nil {
		clusters, err := ParseCDS(cdsRaw)
		if err != nil {
			return err
		}
		if len(clusters) == 0 {
			return nil // kind starts with empty resources, then fills them in
		}
		s.applyCluster(ctx, clusters[0])
		s.cdsHash = sum
	}
	if s.listening == "" {
		return s.listen(ctx)
	}
	return nil
}

func (s *Server) applyCluster(ctx context.Context, c Cluster) {
	if s.proxy == nil {
		cfg := lbproxy.Config{ConnectTimeout: c.ConnectTimeout, CheckInterval: c.CheckInterval,
			CheckTimeout: c.CheckTimeout, UnhealthyThreshold: c.UnhealthyThreshold, HealthyThreshold: c.HealthyThreshold}
		if c.CheckPath != "" {
			cfg.Check = lbproxy.HTTPCheck(c.CheckPath, c.CheckTLS)
		}
		s.proxy = lbproxy.New(ctx, cfg)
	}
	s.proxy.SetBackends(c.Endpoints)
	s.Logf("backends of %s: %v", c.Name, c.Endpoints)
}

func (s *Server) listen(ctx context.Context) error {
	ldsRaw, err := os.ReadFile(s.Bootstrap.LDSPath)
	if err != nil {
		return err
	}
	listeners, err := ParseLDS(ldsRaw)
	if err != nil || len(listeners) == 0 {
		return err
	}
	ln, err := net.Listen("tcp", listeners[0].Address)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", listeners[0].Address, err)
	}
	s.listening = listeners[0].Address
	s.Logf("listening on %s", s.listening)
	go func() {
		if err := s.proxy.Serve(ctx, ln); err != nil {
			s.Logf("serve: %v", err)
		}
	}()
	return nil
}

// serveAdmin answers GET /clusters with one line per backend, in the spirit
// of Envoy's admin endpoint, so callers can wait for a backend to be healthy.
func (s *Server) serveAdmin(ctx context.Context) {
	mux := http.NewServeMux()
	mux.HandleFunc("/clusters", func(w http.ResponseWriter, _ *http.Request) {
		if s.proxy == nil {
			return
		}
		for _, b := range s.proxy.Status() {
			fmt.Fprintf(w, "%s::%s::healthy::%t::active::%d\n", ClusterName, b.Address, b.Healthy, b.Active)
		}
	})
	mux.HandleFunc("/ready", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "LIVE") })
	srv := &http.Server{Addr: fmt.Sprintf(":%d", AdminPort), Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	if err := srv.ListenAndServe(); err != nil && ctx.Err() == nil {
		s.Logf("admin: %v", err)
	}
}
