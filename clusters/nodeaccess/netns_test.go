package nodeaccess

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// TestDial enters this process's own network namespace (what the managers'
// clients do with a node's) and reaches a listener there.
func TestDial(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: entering a network namespace needs root")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("inside")) }))
	defer srv.Close()
	c, err := Dial(context.Background(), os.Getpid(), "tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := Dial(context.Background(), 1<<30, "tcp", "127.0.0.1:1"); !errors.Is(err, ErrNetns) {
		t.Fatalf("a missing process: %v", err)
	}
}
