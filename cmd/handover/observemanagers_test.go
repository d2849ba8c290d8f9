package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/handover-sh/handover/verify/observe"
)

// managerStandIn is a manager's secure port (self-signed TLS, asking for a
// client certificate) recording what each request carried.
type managerStandIn struct {
	*httptest.Server
	mu           sync.Mutex
	paths, auths []string
	withCert     int
}

func newManagerStandIn(t *testing.T) *managerStandIn {
	m := &managerStandIn{}
	m.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.paths = append(m.paths, r.URL.Path)
		m.auths = append(m.auths, r.Header.Get("Authorization"))
		if len(r.TLS.PeerCertificates) > 0 {
			m.withCert++
		}
		m.mu.Unlock()
		_, _ = w.Write([]byte("ok\n"))
	}))
	m.TLS = &tls.Config{ClientAuth: tls.RequestClientCert}
	m.StartTLS()
	t.Cleanup(m.Close)
	return m
}

// kubeconfigCredentials is a kubeconfig's user with a token and, when
// cert, a client certificate.
func kubeconfigCredentials(t *testing.T, cert bool) *rest.Config {
	rc := &rest.Config{BearerToken: "kubeconfig-token"}
	if !cert {
		return rc
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubernetes-admin"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kd, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	rc.CertData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	rc.KeyData = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kd})
	return rc
}

// The kubeconfig's credential, or --manager-token, goes to a manager only
// when --manager-ca verifies it; without one the manager sees no
// Authorization header and no client certificate.
func TestManagersSeeNoCredentialWithoutCA(t *testing.T) {
	for name, tc := range map[string]struct {
		ca, cert bool
		token    string // --manager-token's content
		auth     string // the Authorization header /metrics must carry
		withCert bool
	}{
		"no CA, kubeconfig token":              {},
		"no CA, kubeconfig client certificate": {cert: true},
		"CA, kubeconfig token":                 {ca: true, auth: "Bearer kubeconfig-token"},
		"CA, kubeconfig client certificate":    {ca: true, cert: true, withCert: true},
		"CA, --manager-token":                  {ca: true, cert: true, token: "manager-token\n", auth: "Bearer manager-token"},
	} {
		t.Run(name, func(t *testing.T) {
			m := newManagerStandIn(t)
			f := foreignFlags{kubeconfig: "kc", managers: []string{"kcm@cp-1=" + m.URL}}
			if tc.ca {
				f.managerCA = writeTemp(t, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: m.Certificate().Raw})))
			}
			if tc.token != "" {
				f.managerToken = writeTemp(t, "token", tc.token)
			}
			reach, err := reachOf(f, kubeconfigCredentials(t, tc.cert))
			if err != nil {
				t.Fatal(err)
			}
			if err := observe.CheckManagers(context.Background(), reach); err != nil {
				t.Fatalf("CheckManagers: %v", err)
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			if !tc.ca {
				if strings.Join(m.paths, " ") != "/healthz" || m.auths[0] != "" || m.withCert != 0 {
					t.Fatalf("an unverified manager was asked %v with Authorization %q and %d client certificates", m.paths, m.auths, m.withCert)
				}
				return
			}
			if strings.Join(m.paths, " ") != "/healthz /metrics" || m.auths[1] != tc.auth || (m.withCert == 2) != tc.withCert {
				t.Fatalf("a verified manager was asked %v with Authorization %q and %d client certificates", m.paths, m.auths, m.withCert)
			}
		})
	}
}

// Each manager's mode is said before observing: what is sent it, what it
// is asked, and what is not available.
func TestManagerModeLines(t *testing.T) {
	m := newManagerStandIn(t)
	f := foreignFlags{kubeconfig: "kc", managers: []string{"kcm@cp-1=" + m.URL, "ccm@cp-1=" + m.URL}}
	reach, err := reachOf(f, kubeconfigCredentials(t, false))
	if err != nil {
		t.Fatal(err)
	}
	want := ": anonymous /healthz only, certificate not verified (no --manager-ca: no credential sent; /metrics not available without --manager-ca)"
	if got := observe.Modes(reach); len(got) != 2 || got[0] != "kcm@cp-1 "+m.URL+want || got[1] != "ccm@cp-1 "+m.URL+want {
		t.Fatalf("modes:\n%s", strings.Join(got, "\n"))
	}
	f.managerCA = writeTemp(t, "ca.pem", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: m.Certificate().Raw})))
	if reach, err = reachOf(f, kubeconfigCredentials(t, false)); err != nil {
		t.Fatal(err)
	}
	if got := observe.Modes(reach); len(got) != 2 || !strings.HasSuffix(got[0], ": certificate verified against --manager-ca; /healthz and /metrics with the kubeconfig's token") {
		t.Fatalf("modes:\n%s", strings.Join(got, "\n"))
	}
}

// reachOf is the observers' reach observe builds from the flags.
func reachOf(f foreignFlags, rc *rest.Config) (observe.Reach, error) {
	o, err := f.options(rc)
	if err != nil {
		return nil, err
	}
	return observe.Foreign(o)
}
