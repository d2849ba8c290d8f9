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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/handover-sh/handover/clusters/managers"
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
	// TLS is presented to the managers: their serving certificates are
	// usually self-signed, so it verifies them only when given a CA.
	TLS *tls.Config
	// Token, when set, is sent as a bearer token to the managers.
	Token string
	// AuditLogs are API-server audit log files this process can read.
	AuditLogs []string
}

// Foreign reaches only what its user gave: managers at URLs, audit log
// files; never a node. Every request it makes is a GET.
func Foreign(o ForeignOptions) Reach {
	hc := &http.Client{Transport: &http.Transport{
		TLSClientConfig:     o.TLS,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
	}}
	return &foreign{o: o, m: urlManagers{byEndpoint: index(o.Managers), c: hc, token: o.Token}}
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
func (f *foreign) Metrics() ManagerReach   { return f.m }
func (f *foreign) APIServers() []APIServer { return nil }

func (f *foreign) Fixed() ([]Endpoint, bool) {
	out := make([]Endpoint, 0, len(f.o.Managers))
	for _, m := range f.o.Managers {
		out = append(out, m.Endpoint)
	}
	return out, true
}

func (f *foreign) AuditLogs() []AuditLog {
	out := make([]AuditLog, 0, len(f.o.AuditLogs))
	for _, p := range f.o.AuditLogs {
		out = append(out, AuditLog{Instance: p, Path: func(context.Context) (string, error) { return p, nil }})
	}
	return out
}

// urlManagers asks managers at their URLs.
type urlManagers struct {
	byEndpoint map[Endpoint]*url.URL
	c          *http.Client
	token      string
}

func (m urlManagers) Endpoints() []Endpoint {
	out := make([]Endpoint, 0, len(m.byEndpoint))
	for ep := range m.byEndpoint {
		out = append(out, ep)
	}
	return out
}

func (m urlManagers) Stream(ctx context.Context, ep Endpoint, path string, timeout time.Duration, read func(int, io.Reader) error) error {
	base, ok := m.byEndpoint[ep]
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

// managerCheckTimeout bounds the look at each given manager before
// observing.
const managerCheckTimeout = 5 * time.Second

// CheckManagers asks each manager given for /healthz and /metrics once,
// in parallel, before anything is observed: a manager that refuses this
// identity, whose certificate is not trusted or that does not answer in
// time would be no evidence at all, and the error says what to give. One
// that is down (refused, closed at once: it may start later, on a node
// still to join) is fine.
func CheckManagers(ctx context.Context, r Reach) error {
	eps, _ := r.Fixed()
	errs := make([]error, len(eps))
	var wg sync.WaitGroup
	for i, ep := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = checkManagerRetrying(ctx, r.Metrics(), ep)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// managerCheckTries: a manager that has just restarted refuses every
// identity for a second or two (its delegated authentication is not ready
// yet), so a refusal is asked again before it is an error.
const managerCheckTries = 3

func checkManagerRetrying(ctx context.Context, mr ManagerReach, ep Endpoint) error {
	var err error
	for try := 1; try <= managerCheckTries; try++ {
		if err = checkManager(ctx, mr, ep); err == nil || try == managerCheckTries {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Second):
		}
	}
	return err
}

func checkManager(ctx context.Context, mr ManagerReach, ep Endpoint) error {
	for _, path := range []string{"/healthz", "/metrics"} {
		err := mr.Stream(ctx, ep, path, managerCheckTimeout, func(status int, _ io.Reader) error {
			switch status {
			case http.StatusOK:
				return nil
			case http.StatusUnauthorized, http.StatusForbidden:
				return fmt.Errorf("HTTP %d: the manager refuses this identity (give --manager-token FILE, or bind the role of --print-rbac to the kubeconfig's identity)", status)
			}
			return fmt.Errorf("HTTP %d", status)
		})
		var uerr x509.UnknownAuthorityError
		switch {
		case err == nil || down(err):
		case errors.As(err, &uerr) || strings.Contains(err.Error(), "x509:"):
			return fmt.Errorf("%s at %s%s: %w (give --manager-ca FILE, or leave it out to skip verifying the managers' usually self-signed certificates)", ep.Manager, ep.Instance, path, err)
		default:
			return fmt.Errorf("%s at %s%s: %w", ep.Manager, ep.Instance, path, err)
		}
	}
	return nil
}
