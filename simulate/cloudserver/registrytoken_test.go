package cloudserver

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
)

// A caller with the cloud's token gets a registry token the registry's key
// checks, naming it and its node; a denied caller gets the cloud's 403;
// a cloud without a registry says so.
func TestRegistryToken(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	if _, err := r.client("kubelet").RegistryToken(ctx, "kubelet"); !api.IsNotFound(err) {
		t.Fatalf("a cloud without a registry: %v, want 404", err)
	}
	key, _ := ecrtoken.NewKey()
	r.server.opts.Registry = Registry{Host: "registry.example", TokenKey: key}
	kubelet := r.client("kubelet")
	kubelet.Node = "c-worker"
	tok, err := kubelet.RegistryToken(ctx, "kubelet")
	if err != nil {
		t.Fatal(err)
	}
	if tok.Registry != "registry.example" || tok.Username != RegistryUser || !tok.ExpiresAt.Equal(r.now.Add(registryTokenLife)) {
		t.Fatalf("token %+v", tok)
	}
	if who, ok := ecrtoken.Verify(key, tok.Password, r.now); !ok || who != "kubelet@c-worker" {
		t.Fatalf("the registry's check: %q, %v", who, ok)
	}
	if _, ok := ecrtoken.Verify(key, tok.Password, r.now.Add(registryTokenLife+time.Second)); ok {
		t.Fatal("an expired token still checks")
	}
	if err := r.admin().SetFaults(ctx, api.Faults{Deny: map[string][]string{"kubelet": {"GetRegistryToken"}}}); err != nil {
		t.Fatal(err)
	}
	var se *api.StatusError
	if _, err := kubelet.RegistryToken(ctx, "kubelet"); !errors.As(err, &se) || se.Code != http.StatusForbidden {
		t.Fatalf("a denied kubelet: %v, want 403", err)
	}
	// Without the cloud's token: refused before the handler.
	anon := api.NewClient(r.url, "kubelet")
	if _, err := anon.RegistryToken(ctx, "kubelet"); !errors.As(err, &se) || se.Code != http.StatusUnauthorized {
		t.Fatalf("no cloud token: %v, want 401", err)
	}
}
