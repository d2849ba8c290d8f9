package registry

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
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

const acrHost = "handover.azurecr.io"

type acrRig struct {
	srv    *Server
	key    []byte
	client *http.Client
	seen   chan url.Values // the exchanges the cloud was relayed
}

// newACRRig is a registry of ACR's scheme whose cloud (the exchange's
// upstream, at an address) issues a refresh token for any access token
// "aad-ok".
func newACRRig(t *testing.T) *acrRig {
	t.Helper()
	ca, err := pki.NewCA("test", []string{acrHost}, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM)
	r := &acrRig{seen: make(chan url.Values, 4)}
	r.key, _ = ecrtoken.NewKey()
	cloud := tlsServer(t, ca, nil, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_ = req.ParseForm()
		r.seen <- req.PostForm
		if req.URL.Path != ExchangePath || req.Host != acrHost || req.PostForm.Get("access_token") != "aad-ok" {
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED"}]}`, http.StatusUnauthorized)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"refresh_token": ecrtoken.Password(r.key, "kubelet@n1", time.Now().Add(time.Hour))})
	}), net.ParseIP("127.0.0.1"))
	r.srv, err = New(Options{Host: acrHost, Scheme: SchemeACR, APIUpstream: "https://" + cloud.Listener.Addr().String(), Roots: roots, TokenKey: r.key})
	if err != nil {
		t.Fatal(err)
	}
	front := tlsServer(t, ca, []string{acrHost}, r.srv)
	r.client = &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, front.Listener.Addr().String())
		},
	}}
	return r
}

// The provider's steps as cloud-provider-azure's acr-credential-provider
// takes them: the challenge of /v2/, then the exchange, relayed to the
// cloud with its form.
func TestACRChallengeAndExchange(t *testing.T) {
	r := newACRRig(t)
	resp, err := r.client.Get("https://" + acrHost + "/v2/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Values("Www-Authenticate"); resp.StatusCode != http.StatusUnauthorized || len(got) != 1 ||
		got[0] != `Bearer realm="https://`+acrHost+`/oauth2/token",service="`+acrHost+`"` {
		t.Fatalf("challenge: %d %q", resp.StatusCode, got)
	}
	form := url.Values{"grant_type": {"access_token_refresh_token"}, "service": {acrHost}, "tenant": {"t"}, "access_token": {"aad-ok"}, "refresh_token": {"aad-ok"}}
	resp, err = r.client.PostForm("https://"+acrHost+ExchangePath, form)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		RefreshToken string `json:"refresh_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if who, ok := ecrtoken.Verify(r.key, out.RefreshToken, time.Now()); resp.StatusCode != http.StatusOK || !ok || who != "kubelet@n1" {
		t.Errorf("exchange: %d, refresh token for %q (%v)", resp.StatusCode, who, ok)
	}
	if got := <-r.seen; got.Get("access_token") != "aad-ok" || got.Get("tenant") != "t" {
		t.Errorf("the cloud was relayed %v", got)
	}
}

// containerd's way in: the password grant refused with 400, then the
// realm with basic authentication; the access token then pulls. An access
// token is no refresh token, nor a refresh token an access token.
func TestACRTokensPull(t *testing.T) {
	r := newACRRig(t)
	img, _ := random.Image(512, 1)
	if err := r.srv.Push("handover/echo:v1", img); err != nil {
		t.Fatal(err)
	}
	refresh := ecrtoken.Password(r.key, "kubelet@n1", time.Now().Add(time.Hour))
	resp, err := r.client.PostForm("https://"+acrHost+"/oauth2/token", url.Values{"grant_type": {"password"}, "username": {ACRUser}, "password": {refresh}, "service": {acrHost}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("password grant: %d, want ACR's 400", resp.StatusCode)
	}
	ref, _ := name.NewTag(acrHost + "/handover/echo:v1")
	if _, err := remote.Image(ref, remote.WithTransport(r.client.Transport), remote.WithAuth(&authn.Basic{Username: ACRUser, Password: refresh})); err != nil {
		t.Fatalf("pulling with the refresh token: %v", err)
	}
	resp, err = r.client.PostForm("https://"+acrHost+"/oauth2/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "service": {acrHost}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || out.AccessToken == "" {
		t.Fatalf("refresh_token grant: %d", resp.StatusCode)
	}
	get := func(token string) int {
		req, _ := http.NewRequest(http.MethodGet, "https://"+acrHost+"/v2/handover/echo/manifests/v1", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := r.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get(out.AccessToken); got != http.StatusOK {
		t.Errorf("manifest with the access token: %d", got)
	}
	if got := get(refresh); got != http.StatusUnauthorized {
		t.Errorf("manifest with the refresh token as bearer: %d, want 401", got)
	}
	for what, auth := range map[string]authn.Authenticator{
		"anonymous":             authn.Anonymous,
		"an access token":       &authn.Basic{Username: ACRUser, Password: out.AccessToken},
		"an expired refresh":    &authn.Basic{Username: ACRUser, Password: ecrtoken.Password(r.key, "kubelet@n1", time.Now().Add(-time.Second))},
		"another user's name":   &authn.Basic{Username: "kubelet", Password: refresh},
		"the ECR scheme's user": &authn.Basic{Username: ecrtoken.User, Password: refresh},
	} {
		_, err := remote.Image(ref, remote.WithTransport(r.client.Transport), remote.WithAuth(auth))
		var terr *transport.Error
		if !errors.As(err, &terr) || terr.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: %v, want 401", what, err)
		}
	}
}

// An ACR registry relays only its exchange, and needs the cloud to.
func TestACRNeedsItsUpstream(t *testing.T) {
	key, _ := ecrtoken.NewKey()
	for what, o := range map[string]Options{
		"no upstream":    {Host: acrHost, Scheme: SchemeACR, TokenKey: key},
		"an API name":    {Host: acrHost, Scheme: SchemeACR, TokenKey: key, APIHost: "api.example", APIUpstream: "https://127.0.0.1:1"},
		"another scheme": {Host: acrHost, Scheme: "gcr", TokenKey: key},
	} {
		if _, err := New(o); err == nil || !strings.Contains(err.Error(), "scheme") {
			t.Errorf("%s: %v", what, err)
		}
	}
}
