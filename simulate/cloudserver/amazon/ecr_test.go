package amazon_test

import (
	"context"
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/ecr"

	"github.com/handover-sh/handover/internal/modsource"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
)

// The SDK's ECR client, as an image credential provider makes it (the
// JSON 1.1 protocol, the SDK's default endpoint: its requests go to /),
// gets a token for user AWS whose password the registry can check: issued
// to the caller, for 12 hours, refused when expired or changed.
func TestGetAuthorizationToken(t *testing.T) {
	r := newRig(t, t.TempDir())
	c := ecr.New(session.Must(r.session(kcm)), &aws.Config{HTTPClient: atDefaultEndpoint(t, r.face.Handler())})
	out, err := c.GetAuthorizationToken(&ecr.GetAuthorizationTokenInput{})
	if err != nil {
		t.Fatal(err)
	}
	d := out.AuthorizationData[0]
	raw, err := base64.StdEncoding.DecodeString(aws.StringValue(d.AuthorizationToken))
	user, password, _ := strings.Cut(string(raw), ":")
	if err != nil || user != "AWS" || aws.StringValue(d.ProxyEndpoint) != "https://000000000000.dkr.ecr."+region+".amazonaws.com" {
		t.Fatalf("token %q (%v), endpoint %s", raw, err, aws.StringValue(d.ProxyEndpoint))
	}
	if life := time.Until(aws.TimeValue(d.ExpiresAt)); life < 11*time.Hour || life > 12*time.Hour {
		t.Errorf("expires in %s, want 12 h", life)
	}
	if who, ok := ecrtoken.Verify(registryKey, password, time.Now()); !ok || who != kcm.Principal {
		t.Errorf("the password checks as %q, %v; want %s", who, ok, kcm.Principal)
	}
	if _, ok := ecrtoken.Verify(registryKey, password, time.Now().Add(13*time.Hour)); ok {
		t.Error("an expired password checks")
	}
	if _, ok := ecrtoken.Verify([]byte("another key"), password, time.Now()); ok {
		t.Error("a password of another cloud checks")
	}
	if _, ok := ecrtoken.Verify(registryKey, strings.Replace(password, kcm.Principal, ccm.Principal, 1), time.Now()); ok {
		t.Error("a password naming another caller checks")
	}
	// An error in the JSON protocol reaches the SDK with its code: an
	// action not served.
	if _, err := c.DescribeRepositories(&ecr.DescribeRepositoriesInput{}); code(t, err) != "InvalidAction" {
		t.Errorf("an action not served: %v", err)
	}
	// A token is a credential: never answered in the clear.
	plain := ecr.New(session.Must(r.session(kcm)), &aws.Config{Endpoint: aws.String(r.awsAt + "/ecr")})
	if out, err := plain.GetAuthorizationToken(&ecr.GetAuthorizationTokenInput{}); code(t, err) != "AccessDeniedException" {
		t.Errorf("over plain HTTP: %v, %v", out, err)
	}
}

// atDefaultEndpoint is an HTTP client that reaches h over TLS whatever
// host it is asked for: the SDK's default endpoint, as on a node whose
// resolver names the cloud's address for it.
func atDefaultEndpoint(t *testing.T, h http.Handler) *http.Client {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Host != "api.ecr."+region+".amazonaws.com" {
			http.Error(w, "asked for "+req.Host, http.StatusMisdirectedRequest)
			return
		}
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	c := srv.Client()
	tr := c.Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.ServerName = "example.com" // httptest's certificate
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}
	c.Transport = tr
	return c
}

// The registry's name is one ecr-credential-provider takes for ECR's:
// its ecrPattern (cloud-provider-aws v1.27.2
// cmd/ecr-credential-provider/main.go) matches it, with the account and
// region in the places it reads them from.
func TestRegistryHostMatchesTheCredentialProvider(t *testing.T) {
	text, ok := modsource.Text(t, modsource.Dir(t, "k8s.io/cloud-provider-aws@v1.27.2"), "cmd/ecr-credential-provider/main.go")
	if !ok {
		t.Fatal("cloud-provider-aws v1.27.2 has no cmd/ecr-credential-provider/main.go")
	}
	m := regexp.MustCompile("ecrPattern = regexp.MustCompile\\(`([^`]+)`\\)").FindStringSubmatch(text)
	if m == nil {
		t.Fatal("no ecrPattern in ecr-credential-provider's main.go")
	}
	got := regexp.MustCompile(m[1]).FindStringSubmatch(amazon.RegistryHost(region))
	if got == nil || got[1] != "000000000000" || got[3] != region {
		t.Errorf("%s against %s: %q", amazon.RegistryHost(region), m[1], got)
	}
}
