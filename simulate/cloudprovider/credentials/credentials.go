// Package credentials gets a kubelet the simulated cloud's registry
// credentials, as a cloud's credential provider gets its registry's: the
// cloud configuration every node has names the registry and the cloud's
// API, and the cloud issues a short-lived token to whoever holds the
// cloud's credentials. Both kubelet paths use it: the in-tree provider
// the kubelets of the in-tree releases register (the in-tree GCR and ACR
// providers' place), and the external image credential provider plugin
// (cmd/handover-credential-provider).
package credentials

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/provider"
)

// NodeConfigPath is the cloud configuration on every node of a cluster on
// the simulated cloud: the in-tree provider reads it there, as GCE's read
// the metadata server at its well-known address.
const NodeConfigPath = "/etc/kubernetes/cloud-config.json"

// maxConfig bounds the cloud configuration read.
const maxConfig = 64 << 10

// RenewBefore: a cached token is renewed this long before it expires, so a
// pull never starts with one about to lapse.
const RenewBefore = 5 * time.Minute

// Source issues registry tokens for one caller.
type Source struct {
	registry string
	client   *api.Client
	mu       sync.Mutex
	cached   *api.RegistryToken
	now      func() time.Time
}

// Load reads a cloud configuration; component names the caller in the
// cloud's audit. A configuration without a registry is an error: the
// caller has nothing to provide.
func Load(path, component string) (*Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cfg provider.Config
	if err := json.NewDecoder(io.LimitReader(f, maxConfig)).Decode(&cfg); err != nil {
		return nil, fmt.Errorf("reading the cloud configuration %s: %w", path, err)
	}
	if cfg.URL == "" || cfg.Registry == "" {
		return nil, fmt.Errorf("the cloud configuration %s names no cloud url or no registry", path)
	}
	c := api.NewClient(cfg.URL, component)
	c.Token = cfg.Token
	c.UserAgent = component + "/" + provider.Name + "-credentials"
	if host, err := os.Hostname(); err == nil {
		c.Node = host
	}
	return &Source{registry: cfg.Registry, client: c, now: time.Now}, nil
}

// Registry is the registry's name.
func (s *Source) Registry() string { return s.registry }

// Matches reports whether image is pulled from the cloud's registry.
func (s *Source) Matches(image string) bool {
	host, _, ok := strings.Cut(image, "/")
	return ok && strings.EqualFold(host, s.registry)
}

// Token is a token good for a while yet: the cached one, or a new one.
func (s *Source) Token(ctx context.Context) (*api.RegistryToken, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached != nil && s.now().Add(RenewBefore).Before(s.cached.ExpiresAt) {
		return s.cached, nil
	}
	t, err := s.client.RegistryToken(ctx, "image-credentials")
	if err != nil {
		return nil, fmt.Errorf("a token for %s: %w", s.registry, err)
	}
	s.cached = t
	return t, nil
}
