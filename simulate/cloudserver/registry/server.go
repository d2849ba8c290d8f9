package registry

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	ggcr "github.com/google/go-containerregistry/pkg/registry"

	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
)

// ecrTargetPrefix starts the X-Amz-Target of every ECR call (its API's
// JSON 1.1 target prefix, aws-sdk-go service/ecr).
const ecrTargetPrefix = "AmazonEC2ContainerRegistry_V20150921."

// Options configure a Server.
type Options struct {
	// Host is the registry's name (<account>.dkr.ecr.<region>.amazonaws.com).
	Host string
	// APIHost is ECR's API name (api.ecr.<region>.amazonaws.com), relayed
	// to APIUpstream; "" relays nothing.
	APIHost string
	// APIUpstream is the cloud's AWS APIs over TLS (https://host:port),
	// whose certificate must name APIHost and chain to Roots.
	APIUpstream string
	Roots       *x509.CertPool
	// TokenKey checks the passwords of the cloud's tokens, which are for
	// User (default ECR's, "AWS"); Service is named in the challenge
	// (default ECR's).
	TokenKey []byte
	User     string
	Service  string
	// Scheme is how callers log in: "" as to ECR (SchemeECR), or as to
	// ACR (SchemeACR, whose exchange goes to APIUpstream).
	Scheme string
	Now    func() time.Time
	// Log, when set, is told of every registry request answered.
	Log func(Record)
}

// Record is one registry request as the log keeps it: who pulled what,
// and whether the registry let them.
type Record struct {
	Time       time.Time `json:"time"`
	RemoteAddr string    `json:"remoteAddr"`
	Principal  string    `json:"principal,omitempty"` // "" when no valid token came
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Status     int       `json:"status"`
}

// Server answers for both names.
type Server struct {
	opts  Options
	store http.Handler // the registry itself, without the login
	relay http.Handler
}

// New assembles a server with an empty registry.
func New(o Options) (*Server, error) {
	if o.Host == "" || len(o.TokenKey) == 0 {
		return nil, fmt.Errorf("registry: a server needs its name and the token key")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Scheme = cmp.Or(o.Scheme, SchemeECR)
	switch o.Scheme {
	case SchemeECR:
		o.User, o.Service = cmp.Or(o.User, ecrtoken.User), cmp.Or(o.Service, "ecr.amazonaws.com")
	case SchemeACR:
		// ACR's challenge names the registry itself; its token service
		// takes the exchange's user only.
		o.User, o.Service = ACRUser, o.Host
		if o.APIHost != "" || o.APIUpstream == "" {
			return nil, fmt.Errorf("registry: ACR's scheme relays its token exchange to the cloud (an API upstream, no API name)")
		}
	default:
		return nil, fmt.Errorf("registry: scheme %q: use %q (ECR's) or %q", o.Scheme, SchemeECR, SchemeACR)
	}
	s := &Server{opts: o, store: ggcr.New(ggcr.Logger(log.New(io.Discard, "", 0)))}
	if o.APIUpstream != "" {
		relay, err := newRelay(o.APIUpstream, cmp.Or(o.APIHost, upstreamHost(o.APIUpstream)), o.Roots)
		if err != nil {
			return nil, err
		}
		s.relay = relay
	}
	return s, nil
}

// upstreamHost is the host an upstream URL names, the name its
// certificate must have when no API name is relayed.
func upstreamHost(upstream string) string {
	u, err := url.Parse(upstream)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// newRelay passes ECR's API calls on unchanged (their signatures cover the
// host, path and body) to the cloud, over TLS to a certificate for name.
func newRelay(upstream, name string, roots *x509.CertPool) (http.Handler, error) {
	u, err := url.Parse(upstream)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("registry: the API upstream %q is not an https URL", upstream)
	}
	if roots == nil {
		return nil, fmt.Errorf("registry: the API upstream needs the roots its certificate chains to")
	}
	tr := &http.Transport{
		TLSClientConfig:     &tls.Config{RootCAs: roots, ServerName: name, MinVersion: tls.VersionTLS12},
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		TLSHandshakeTimeout: 5 * time.Second,
	}
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(u)
			r.Out.Host = r.In.Host
			r.SetXForwarded()
		},
		Transport: tr,
	}, nil
}

// ServeHTTP answers by the name asked for.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	switch {
	case strings.EqualFold(host, s.opts.Host) && s.opts.Scheme == SchemeACR:
		s.serveACR(w, r)
	case strings.EqualFold(host, s.opts.Host):
		s.serveRegistry(w, r)
	case s.relay != nil && strings.EqualFold(host, s.opts.APIHost):
		// ECR's calls only (POST / with its target): the cloud's TLS
		// listener serves its other APIs too.
		if r.Method != http.MethodPost || r.URL.Path != "/" || !strings.HasPrefix(r.Header.Get("X-Amz-Target"), ecrTargetPrefix) {
			http.Error(w, "only ECR's API is served under "+s.opts.APIHost, http.StatusForbidden)
			return
		}
		s.relay.ServeHTTP(w, r)
	default:
		http.Error(w, fmt.Sprintf("no service for %q here: this is %s", r.Host, s.opts.Host), http.StatusMisdirectedRequest)
	}
}

// serveRegistry lets a caller with a valid ECR token read; it refuses
// writes.
func (s *Server) serveRegistry(w http.ResponseWriter, r *http.Request) {
	s.logged(w, r, func(w http.ResponseWriter, rec *Record) {
		user, password, ok := r.BasicAuth()
		if ok && user == s.opts.User {
			rec.Principal, ok = ecrtoken.Verify(s.opts.TokenKey, password, s.opts.Now())
		}
		if !ok || user != s.opts.User {
			// ECR's challenge: basic authentication with the token's user
			// and password (docker login's).
			w.Header().Set("WWW-Authenticate", `Basic realm="https://`+s.opts.Host+`/",service="`+s.opts.Service+`"`)
			writeError(w, http.StatusUnauthorized, "DENIED", "Your authorization token has expired or is not valid. Reauthenticate and try again.")
			return
		}
		s.read(w, r)
	})
}

// logged serves a registry request and logs it with its status.
func (s *Server) logged(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *Record)) {
	rec := Record{Time: s.opts.Now(), RemoteAddr: r.RemoteAddr, Method: r.Method, Path: r.URL.Path}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	serve(sw, &rec)
	if s.opts.Log != nil {
		rec.Status = sw.status
		s.opts.Log(rec)
	}
}

// read serves the store to a caller let in: reads only.
func (s *Server) read(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeError(w, http.StatusForbidden, "DENIED", "this registry holds the images the simulated cloud pushed at start: pushing is not simulated")
		return
	}
	s.store.ServeHTTP(w, r)
}

// writeError answers in the distribution spec's error form.
func writeError(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]string{{"code": code, "message": message}}})
}

type statusWriter struct {
	http.ResponseWriter
	once   sync.Once
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.once.Do(func() { w.status = code })
	w.ResponseWriter.WriteHeader(code)
}
