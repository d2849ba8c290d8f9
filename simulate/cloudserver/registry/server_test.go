package registry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"github.com/handover-sh/handover/internal/pki"
	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
)

const (
	host    = "000000000000.dkr.ecr.sim-region-1.amazonaws.com"
	apiHost = "api.ecr.sim-region-1.amazonaws.com"
)

type rig struct {
	srv     *Server
	key     []byte
	client  *http.Transport // reaches the server under any name
	mu      sync.Mutex
	records []Record
	apiSeen chan *http.Request
}

func newRig(t *testing.T) *rig {
	t.Helper()
	ca, err := pki.NewCA("test", []string{host, apiHost}, nil)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	r := &rig{apiSeen: make(chan *http.Request, 1)}
	r.key, _ = ecrtoken.NewKey()
	api := tlsServer(t, ca, []string{apiHost}, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.apiSeen <- req
		_, _ = io.WriteString(w, `{"authorizationData":[]}`)
	}))
	r.srv, err = New(Options{Host: host, APIHost: apiHost, APIUpstream: "https://" + api.Listener.Addr().String(),
		Roots: roots, TokenKey: r.key,
		Log: func(rec Record) { r.mu.Lock(); r.records = append(r.records, rec); r.mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	front := tlsServer(t, ca, []string{host, apiHost}, r.srv)
	r.client = &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, front.Listener.Addr().String())
		},
	}
	return r
}

func tlsServer(t *testing.T, ca *pki.CA, names []string, h http.Handler, ips ...net.IP) *httptest.Server {
	t.Helper()
	certPEM, keyPEM, err := ca.Issue(names, ips)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(h)
	s.TLS = &tls.Config{Certificates: []tls.Certificate{pair}}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (r *rig) basic(principal string, expires time.Time) authn.Authenticator {
	return &authn.Basic{Username: ecrtoken.User, Password: ecrtoken.Password(r.key, principal, expires)}
}

// An image the cloud pushed is pulled by a caller whose password ECR
// issued, and refused (401, with ECR's basic challenge) to one without, with
// an expired one, or with another cloud's; the log names who pulled.
func TestPullsNeedAToken(t *testing.T) {
	r := newRig(t)
	img, err := random.Image(1024, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.srv.Push("handover/echo:v1", img); err != nil {
		t.Fatal(err)
	}
	ref, _ := name.NewTag(host + "/handover/echo:v1")
	pulled, err := remote.Image(ref, remote.WithTransport(r.client), remote.WithAuth(r.basic("kubelet", time.Now().Add(time.Hour))))
	if err != nil {
		t.Fatalf("pulling with a token: %v", err)
	}
	want, _ := img.Digest()
	if got, _ := pulled.Digest(); got != want {
		t.Errorf("pulled %s, pushed %s", got, want)
	}
	layers, _ := pulled.Layers()
	if rc, err := layers[0].Compressed(); err != nil {
		t.Errorf("a layer: %v", err)
	} else {
		rc.Close()
	}
	otherKey, _ := ecrtoken.NewKey()
	for what, auth := range map[string]authn.Authenticator{
		"no login":        authn.Anonymous,
		"an expired one":  r.basic("kubelet", time.Now().Add(-time.Minute)),
		"another cloud's": &authn.Basic{Username: ecrtoken.User, Password: ecrtoken.Password(otherKey, "kubelet", time.Now().Add(time.Hour))},
		"another user":    &authn.Basic{Username: "kubelet", Password: ecrtoken.Password(r.key, "kubelet", time.Now().Add(time.Hour))},
	} {
		_, err := remote.Image(ref, remote.WithTransport(r.client), remote.WithAuth(auth))
		var terr *transport.Error
		if !errors.As(err, &terr) || terr.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: %v, want 401", what, err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	pulledBy := map[string]bool{}
	for _, rec := range r.records {
		if rec.Status == http.StatusOK && strings.Contains(rec.Path, "/manifests/") {
			pulledBy[rec.Principal] = true
		}
	}
	if len(pulledBy) != 1 || !pulledBy["kubelet"] {
		t.Errorf("manifests served to %v, want the kubelet only", pulledBy)
	}
}

// A push from outside is refused, even with a token.
func TestPushesAreRefused(t *testing.T) {
	r := newRig(t)
	img, _ := random.Image(64, 1)
	ref, _ := name.NewTag(host + "/mine:v1")
	err := remote.Write(ref, img, remote.WithTransport(r.client), remote.WithAuth(r.basic("kubelet", time.Now().Add(time.Hour))))
	var terr *transport.Error
	if !errors.As(err, &terr) || terr.StatusCode != http.StatusForbidden {
		t.Errorf("push: %v, want 403", err)
	}
}

// ECR's API name reaches the cloud's API unchanged: the host a signature
// covers, the path, the target and the body.
func TestAPIRelay(t *testing.T) {
	r := newRig(t)
	c := &http.Client{Transport: r.client}
	req, _ := http.NewRequest(http.MethodPost, "https://"+apiHost+"/", strings.NewReader("{}"))
	req.Header.Set("X-Amz-Target", "AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := <-r.apiSeen
	if got.Host != apiHost || got.URL.Path != "/" || got.Header.Get("X-Amz-Target") == "" || resp.StatusCode != http.StatusOK {
		t.Errorf("the cloud saw host %q path %q target %q; answered %d", got.Host, got.URL.Path, got.Header.Get("X-Amz-Target"), resp.StatusCode)
	}
	// Nothing but ECR's calls goes on to the cloud.
	req, _ = http.NewRequest(http.MethodPost, "https://"+apiHost+"/", strings.NewReader("Action=DescribeInstances"))
	if resp, err := c.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("an EC2 call relayed: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// Any other name is not served.
	req, _ = http.NewRequest(http.MethodGet, "https://"+apiHost+"/", nil)
	req.Host = "ec2.sim-region-1.amazonaws.com"
	if resp, err := c.Do(req); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("another name: %d", resp.StatusCode)
		}
	}
}

// A registry of another cloud's tokens (the simulated cloud's own user)
// takes them and refuses ECR's user with the same password.
func TestTokensOfAnotherUser(t *testing.T) {
	key, _ := ecrtoken.NewKey()
	srv, err := New(Options{Host: host, TokenKey: key, User: "simcloud", Service: "simcloud"})
	if err != nil {
		t.Fatal(err)
	}
	password := ecrtoken.Password(key, "kubelet@n", time.Now().Add(time.Hour))
	for user, want := range map[string]int{"simcloud": http.StatusNotFound, ecrtoken.User: http.StatusUnauthorized} {
		req := httptest.NewRequest(http.MethodGet, "https://"+host+"/v2/handover/echo/manifests/v1", nil)
		req.SetBasicAuth(user, password)
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code != want {
			t.Errorf("user %s: %d, want %d", user, w.Code, want)
		}
		if want == http.StatusUnauthorized && !strings.Contains(w.Header().Get("WWW-Authenticate"), `service="simcloud"`) {
			t.Errorf("challenge %q", w.Header().Get("WWW-Authenticate"))
		}
	}
}
