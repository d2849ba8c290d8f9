package managers

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"
)

// TestClientsReadAManager serves a verbose /healthz in this process's own
// network namespace and reads it as the waits and observers do.
func TestClientsReadAManager(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: entering a network namespace needs root")
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("[+]ping ok\n[+]service-lb-controller ok\nhealthz check passed\n"))
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	_, closedPort, _ := net.SplitHostPort(closed.Addr().String())
	closed.Close()
	Ports["test-manager"], Ports["stopped-manager"] = port, closedPort
	defer func() { delete(Ports, "test-manager"); delete(Ports, "stopped-manager") }()

	pids := 0
	c := &Clients{PID: func(context.Context, string) (int, error) { pids++; return os.Getpid(), nil }}
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		got, err := c.Controllers(ctx, "node", "test-manager", 2*time.Second)
		if err != nil || !got["service-lb-controller"] || len(got) != 1 {
			t.Fatalf("Controllers = %v, %v", got, err)
		}
	}
	if pids != 1 {
		t.Fatalf("three polls looked the node up %d times, want once (one client per node)", pids)
	}
	got, err := c.Controllers(ctx, "node", "stopped-manager", 2*time.Second)
	if err != nil || len(got) != 0 {
		t.Fatalf("a manager not listening runs nothing: %v, %v", got, err)
	}
	if _, err := c.Get(ctx, "node", "no-such-manager", "/healthz", time.Second); err == nil {
		t.Fatal("an unknown manager must be an error")
	}
}
