package observe

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/engine"
	"github.com/handover-sh/handover/clusters/engine/enginetest"
	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/timeline"
)

// TestPollingCostsNoProcessAndNoRelisting runs the manager pollers (health,
// metrics, audit) against three control planes of a fake engine whose
// "nodes" are this process (its network namespace serves both managers):
// every poll must be answered without starting a process, and the node
// list must come from the engine once, not once per poll.
func TestPollingCostsNoProcessAndNoRelisting(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: entering a network namespace needs root")
	}
	// Any docker (or other) command would leave a mark.
	bin := t.TempDir()
	mark := filepath.Join(bin, "spawned")
	for _, name := range []string{"docker", "curl", "sh"} {
		script := "#!/bin/sh\necho " + name + " >> " + mark + "\nexit 1\n"
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	serveManagers(t)

	f := enginetest.New()
	for _, n := range []string{"c-control-plane", "c-control-plane2", "c-control-plane3"} {
		f.Add(n, "running", os.Getpid(), kindcluster.Labels("c", kindcluster.RoleControlPlane))
	}
	set := engine.NewSet(t.Context(), f, kindcluster.Selector("c"), engine.WithSettle(0))
	for !set.Connected() {
		time.Sleep(time.Millisecond)
	}
	var buf testenv.LockedBuffer
	ob := &Observer{o: Options{Reach: KindReach(kindcluster.Over("c", log.NoopLogger{}, set), "", nil), Timeline: timeline.NewWriter(&buf),
		Controllers: []string{"service-lb-controller"}, HealthEvery: 20 * time.Millisecond, MetricsEvery: 20 * time.Millisecond}}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	for _, run := range []func(context.Context){ob.pollHealth, ob.pollMetrics, ob.followAudit} {
		wg.Add(1)
		go func() { defer wg.Done(); run(ctx) }()
	}
	wg.Wait()

	if spawned, err := os.ReadFile(mark); err == nil {
		t.Fatalf("polling started processes: %s", spawned)
	}
	evs, err := timeline.Read(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	up := 0
	for _, e := range evs {
		if e.Kind == timeline.Health && e.Attrs["up"] == "true" && e.Attrs["controllers"] == "service-lb-controller" {
			up++
		}
	}
	if up < 3*2*5 {
		t.Fatalf("only %d health samples answered in 0.5 s of 20 ms polls over 3 nodes × 2 managers", up)
	}
	// One list for the whole run; at most one inspect per node per client
	// set (health, metrics, audit: their first look-ups may overlap before
	// the PID is cached), however many polls: polling re-lists nothing.
	if c := f.Calls(); c.List != 1 || c.Inspect > 3*3 {
		t.Fatalf("%d health polls cost %d container lists and %d inspects; want 1 list and at most 9 inspects", up, c.List, c.Inspect)
	}
}

// serveManagers answers /healthz and /metrics for both managers on local
// ports, and points the managers' port table at them for the test.
func serveManagers(t *testing.T) {
	saved := map[string]string{}
	for _, comp := range managers.Names() {
		srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/metrics" {
				_, _ = w.Write([]byte(`running_managed_controllers{manager="x",name="service"} 1` + "\n"))
				return
			}
			_, _ = w.Write([]byte("[+]ping ok\n[+]service-lb-controller ok\nhealthz check passed\n"))
		}))
		t.Cleanup(srv.Close)
		_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
		saved[comp], managers.Ports[comp] = managers.Ports[comp], port
	}
	t.Cleanup(func() {
		for comp, port := range saved {
			managers.Ports[comp] = port
		}
	})
}
