package observe

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/internal/boundedfile"
)

// ManagerURL is a manager the user can reach: which one, the instance it
// is in the reports, and the base URL of its secure port.
type ManagerURL struct {
	Endpoint
	URL *url.URL
}

// managerAliases are the short names a --manager flag may use.
var managerAliases = map[string]string{"kcm": "kube-controller-manager", "ccm": "cloud-controller-manager"}

// ParseManagerURL reads "[MANAGER[@INSTANCE]=]URL": MANAGER is
// kube-controller-manager (kcm) or cloud-controller-manager (ccm), by
// default the one whose port the URL names (10257, 10258); INSTANCE is the
// name the reports give it, by default the URL's host and port.
func ParseManagerURL(s string) (ManagerURL, error) {
	name, raw, named := strings.Cut(s, "=")
	if !named || strings.Contains(name, "/") {
		name, raw = "", s
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Port() == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return ManagerURL{}, fmt.Errorf("manager %q: want https://HOST:PORT (a manager's secure port; no query or user), optionally after MANAGER[@INSTANCE]=", s)
	}
	comp, inst, _ := strings.Cut(name, "@")
	if c, ok := managerAliases[comp]; ok {
		comp = c
	}
	if comp == "" {
		for m, port := range managers.Ports {
			if u.Port() == port {
				comp = m
			}
		}
		if comp == "" {
			return ManagerURL{}, fmt.Errorf("manager %q: port %q is neither manager's default (%s); say which it is: kcm=URL or ccm=URL", s, u.Port(), portList())
		}
	}
	if _, ok := managers.Ports[comp]; !ok {
		return ManagerURL{}, fmt.Errorf("manager %q: %q is no manager (want kcm, ccm, %s)", s, comp, strings.Join(managers.Names(), ", "))
	}
	if inst == "" {
		inst = u.Host
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return ManagerURL{Endpoint: Endpoint{Manager: comp, Instance: inst}, URL: u}, nil
}

func portList() string {
	var out []string
	for _, m := range managers.Names() {
		out = append(out, m+" "+managers.Ports[m])
	}
	return strings.Join(out, ", ")
}

// ForeignOptions say how to reach a cluster handover did not create.
type ForeignOptions struct {
	Managers []ManagerURL
	// CA verifies the managers' serving certificates. Without one they
	// are not verified, so nothing is sent them that is worth stealing:
	// anonymous GETs of /healthz, never a credential (see managerauth.go).
	CA *x509.CertPool
	// Credential identifies the observer to managers whose certificate CA
	// verified, for /metrics; Foreign refuses one without a CA.
	Credential Credential
	// AuditLogs are API-server audit log files this process can read.
	AuditLogs []string
}

// Foreign reaches only what its user gave: managers at URLs, audit log
// files; never a node. Every request it makes is a GET. A credential
// without a CA to verify the managers is an error: it would go to
// whoever answers at their addresses.
func Foreign(o ForeignOptions) (Reach, error) {
	if o.CA == nil && !o.Credential.empty() {
		return nil, errors.New("a credential for the managers, but no CA to verify them: refused, it would go to whoever answers at their addresses (give --manager-ca FILE)")
	}
	tc := &tls.Config{RootCAs: o.CA, MinVersion: tls.VersionTLS12}
	if o.CA == nil {
		tc.InsecureSkipVerify = true //nolint:gosec // unverified managers are sent nothing but anonymous GETs of /healthz
	}
	if o.Credential.Cert != nil {
		tc.Certificates = []tls.Certificate{*o.Credential.Cert}
	}
	hc := &http.Client{
		Transport: &http.Transport{
			TLSClientConfig:     tc,
			MaxIdleConnsPerHost: 2,
			IdleConnTimeout:     30 * time.Second,
			DisableCompression:  true,
		},
		// A manager never redirects these paths: a redirect is answered
		// as it is, not followed with the credential to another address.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &foreign{o: o, m: urlManagers{mu: &sync.RWMutex{}, byEndpoint: index(o.Managers), c: hc, token: o.Credential.Token}}, nil
}

func index(ms []ManagerURL) map[Endpoint]*url.URL {
	out := map[Endpoint]*url.URL{}
	for _, m := range ms {
		out[m.Endpoint] = m.URL
	}
	return out
}

type foreign struct {
	o ForeignOptions
	m urlManagers
}

func (f *foreign) Health() ManagerReach    { return f.m }
func (f *foreign) APIServers() []APIServer { return nil }

// Metrics are the managers' /metrics pages, which need a credential: out
// of reach without one, or without a CA to send it under.
func (f *foreign) Metrics() (ManagerReach, string) {
	if why := f.o.metricsUnavailable(); why != "" {
		return nil, why
	}
	return f.m, ""
}

func (f *foreign) Fixed() ([]Endpoint, bool) {
	out := make([]Endpoint, 0, len(f.o.Managers))
	for _, m := range f.o.Managers {
		out = append(out, m.Endpoint)
	}
	return out, true
}

// Add samples a manager found while observing from now on; false when it
// is sampled already.
func (f *foreign) Add(m ManagerURL) bool { return f.m.add(m) }

func (f *foreign) AuditLogs() []AuditLog {
	out := make([]AuditLog, 0, len(f.o.AuditLogs))
	for _, p := range f.o.AuditLogs {
		out = append(out, AuditLog{Instance: p, Open: func(context.Context) (*os.File, error) { return boundedfile.OpenGrowing(p) }})
	}
	return out
}

// urlManagers asks managers at their URLs; the set grows as managers are
// found while observing.
type urlManagers struct {
	mu         *sync.RWMutex
	byEndpoint map[Endpoint]*url.URL
	c          *http.Client
	token      string
}

func (m urlManagers) Endpoints() []Endpoint {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]Endpoint, 0, len(m.byEndpoint))
	for ep := range m.byEndpoint {
		out = append(out, ep)
	}
	return out
}

func (m urlManagers) add(u ManagerURL) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.byEndpoint[u.Endpoint]; ok {
		return false
	}
	m.byEndpoint[u.Endpoint] = u.URL
	return true
}

func (m urlManagers) url(ep Endpoint) (*url.URL, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	u, ok := m.byEndpoint[ep]
	return u, ok
}

func (m urlManagers) Stream(ctx context.Context, ep Endpoint, path string, timeout time.Duration, read func(int, io.Reader) error) error {
	base, ok := m.url(ep)
	if !ok {
		return fmt.Errorf("no URL for %s on %s", ep.Manager, ep.Instance)
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, base.String()+path, nil)
	if err != nil {
		return err
	}
	if m.token != "" {
		req.Header.Set("Authorization", "Bearer "+m.token)
	}
	resp, err := m.c.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("%w: %s at %s: %v", managers.ErrNotListening, ep.Manager, base, err)
		}
		return err
	}
	return managers.ReadAnswer(resp, read)
}
