package observe

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/timeline"
)

// seen is one request a stand-in manager was sent: its path, its
// Authorization header and the client certificates it presented.
type seen struct {
	path, auth string
	certs      int
}

// standIn is a manager's secure port as a real one answers: a TLS server
// with a self-signed certificate, asking for (not requiring) a client
// certificate; /healthz open to anyone, /metrics to an identified client
// only. It records every request.
type standIn struct {
	*httptest.Server
	mu   sync.Mutex
	sent []seen
}

func newStandIn(t *testing.T) *standIn {
	t.Helper()
	s := &standIn{}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := seen{path: r.URL.Path, auth: r.Header.Get("Authorization"), certs: len(r.TLS.PeerCertificates)}
		s.mu.Lock()
		s.sent = append(s.sent, q)
		s.mu.Unlock()
		switch {
		case r.URL.Path == "/healthz":
			_, _ = w.Write([]byte("[+]ping ok\n[+]service-lb-controller ok\nhealthz check passed\n"))
		case r.URL.Path == "/metrics" && (q.auth != "" || q.certs > 0):
			_, _ = w.Write([]byte(`running_managed_controllers{manager="x",name="service"} 1` + "\n"))
		default:
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	s.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	s.StartTLS()
	t.Cleanup(s.Close)
	return s
}

func (s *standIn) requests() []seen {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seen(nil), s.sent...)
}

// ca is the stand-in's self-signed certificate as --manager-ca gives it.
func (s *standIn) ca() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(s.Certificate())
	return p
}

func (s *standIn) managers(t *testing.T) []ManagerURL {
	u, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	return []ManagerURL{{Endpoint: Endpoint{Manager: "kube-controller-manager", Instance: "cp-1"}, URL: u}}
}

// clientCert is a client certificate such as a kubeconfig carries.
func clientCert(t *testing.T) *tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubernetes-admin", Organization: []string{"system:masters"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// A credential for the managers goes to verified managers only: Foreign
// refuses one without a CA.
func TestForeignRefusesACredentialWithoutCA(t *testing.T) {
	m := newStandIn(t)
	for name, cred := range map[string]Credential{"token": {Token: "secret"}, "client certificate": {Cert: clientCert(t)}} {
		if _, err := Foreign(ForeignOptions{Managers: m.managers(t), Credential: cred}); err == nil || !strings.Contains(err.Error(), "--manager-ca") {
			t.Errorf("%s without a CA: %v", name, err)
		}
	}
	if n := len(m.requests()); n != 0 {
		t.Fatalf("the manager was sent %d requests", n)
	}
}

// Without a CA a manager is asked its anonymous /healthz alone, with no
// Authorization header and no client certificate; the observers sample
// its health, not its /metrics, and observer.start says why.
func TestUnverifiedManagersAreSentNoCredential(t *testing.T) {
	m := newStandIn(t)
	reach, err := Foreign(ForeignOptions{Managers: m.managers(t)})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckManagers(context.Background(), reach); err != nil {
		t.Fatalf("CheckManagers: %v", err)
	}
	if modes := Modes(reach); len(modes) != 1 || !strings.HasPrefix(modes[0], "kcm@cp-1 "+m.URL+": anonymous /healthz only") ||
		!strings.Contains(modes[0], "no credential sent") || !strings.Contains(modes[0], "/metrics not available without --manager-ca") {
		t.Fatalf("modes %q", modes)
	}
	api := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer api.Close()
	var buf testenv.LockedBuffer
	ob := Start(context.Background(), Options{Reach: reach, Client: fake.NewSimpleClientset(), REST: &rest.Config{Host: api.URL},
		Timeline: timeline.NewWriter(&buf), Controllers: []string{"service-lb-controller"}, NoLBProbes: true,
		HealthEvery: 20 * time.Millisecond, MetricsEvery: 20 * time.Millisecond, ProbeEvery: 20 * time.Millisecond})
	waitFor(t, func() bool { return len(m.requests()) >= 5 })
	ob.Stop()
	for _, q := range m.requests() {
		if q.auth != "" || q.certs != 0 {
			t.Errorf("an unverified manager was sent a credential: %+v", q)
		}
		if q.path != "/healthz" {
			t.Errorf("an unverified manager was asked %s", q.path)
		}
	}
	evs, err := timeline.Read(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, e := range evs {
		n[e.Kind]++
		if e.Kind == timeline.ObserverStart && !strings.HasPrefix(e.Attrs[timeline.MetricsOutOfReach], "not available without --manager-ca") {
			t.Errorf("observer.start does not say /metrics is out of reach: %v", e.Attrs)
		}
	}
	if n[timeline.Health] < 3 || n[timeline.Metrics] != 0 {
		t.Fatalf("events by kind %v: want health samples and no metrics scrape", n)
	}
}

// With a CA the manager's certificate is verified, and the credential is
// sent for /metrics: the token as a bearer token, or the client
// certificate.
func TestVerifiedManagersAreSentTheCredential(t *testing.T) {
	for name, tc := range map[string]struct {
		cred        Credential
		auth, certs bool
	}{
		"token":              {Credential{Token: "secret", From: "--manager-token f"}, true, false},
		"client certificate": {Credential{Cert: clientCert(t), From: "the kubeconfig's client certificate"}, false, true},
	} {
		t.Run(name, func(t *testing.T) {
			m := newStandIn(t)
			reach, err := Foreign(ForeignOptions{Managers: m.managers(t), CA: m.ca(), Credential: tc.cred})
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckManagers(context.Background(), reach); err != nil {
				t.Fatalf("CheckManagers: %v", err)
			}
			if modes := Modes(reach); len(modes) != 1 || !strings.Contains(modes[0], "verified against --manager-ca; /healthz and /metrics with "+tc.cred.From) {
				t.Fatalf("modes %q", modes)
			}
			if _, why := reach.Metrics(); why != "" {
				t.Fatalf("metrics out of reach: %s", why)
			}
			var metrics int
			for _, q := range m.requests() {
				if (q.auth == "Bearer secret") != tc.auth || (q.certs == 1) != tc.certs {
					t.Errorf("request %+v", q)
				}
				if q.path == "/metrics" {
					metrics++
				}
			}
			if metrics != 1 {
				t.Fatalf("requests %+v: want /metrics asked once", m.requests())
			}
		})
	}
}

// A CA that did not sign the manager's certificate: the credential is
// never sent, and the error says what is wrong.
func TestAManagerTheCANeverSignedGetsNothing(t *testing.T) {
	m, other := newStandIn(t), x509.NewCertPool()
	other.AddCert(clientCertX509(t))
	reach, err := Foreign(ForeignOptions{Managers: m.managers(t), CA: other, Credential: Credential{Token: "secret"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckManagers(context.Background(), reach); err == nil || !strings.Contains(err.Error(), "not one --manager-ca verifies") {
		t.Fatalf("CheckManagers = %v", err)
	}
	if qs := m.requests(); len(qs) != 0 {
		t.Fatalf("an unverified manager got requests %+v", qs)
	}
}

// A redirect is not followed: the credential stays with the manager the
// CA verified.
func TestVerifiedManagerRedirectsAreNotFollowed(t *testing.T) {
	elsewhere := newStandIn(t)
	m := httptest.NewTLSServer(http.RedirectHandler(elsewhere.URL+"/metrics", http.StatusFound))
	defer m.Close()
	u, _ := url.Parse(m.URL)
	reach, err := Foreign(ForeignOptions{Managers: []ManagerURL{{Endpoint: Endpoint{Manager: "kube-controller-manager", Instance: "cp-1"}, URL: u}},
		CA: elsewhere.ca(), Credential: Credential{Token: "secret"}}) // httptest servers share one certificate
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := reach.Metrics()
	status := 0
	err = metrics.Stream(context.Background(), Endpoint{Manager: "kube-controller-manager", Instance: "cp-1"}, "/metrics", time.Second,
		func(s int, _ io.Reader) error { status = s; return nil })
	if err != nil || status != http.StatusFound {
		t.Fatalf("status %d, err %v: want the redirect answered as it is", status, err)
	}
	if qs := elsewhere.requests(); len(qs) != 0 {
		t.Fatalf("a redirect was followed: %+v", qs)
	}
}

func clientCertX509(t *testing.T) *x509.Certificate {
	c, err := x509.ParseCertificate(clientCert(t).Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// waitFor polls cond until it holds, failing after 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHealthIsOpenToAnonymousByDefault re-reads what managerauth.go cites:
// the defaults upstream pins for the cloud-controller-manager's delegated
// authorization and authentication (k8s.io/cloud-provider's options test)
// still let an anonymous request through to anonymousPath.
func TestHealthIsOpenToAnonymousByDefault(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/cloud-provider").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("skipped: k8s.io/cloud-provider's source is not in the module cache (go list -m: %v)", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "options", "options_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	paths := regexp.MustCompile(`AlwaysAllowPaths:\s*\[\]string\{([^}]*)\}`).FindStringSubmatch(src)
	if paths == nil || !strings.Contains(paths[1], `"`+anonymousPath+`"`) {
		t.Errorf("upstream's default AlwaysAllowPaths %q no longer has %s", paths, anonymousPath)
	}
	if !regexp.MustCompile(`Anonymous:\s*&apiserverapis\.AnonymousAuthConfig\{Enabled: true\}`).MatchString(src) {
		t.Errorf("upstream's default authentication no longer admits anonymous requests (%s)", filepath.Join(dir, "options", "options_test.go"))
	}
}
