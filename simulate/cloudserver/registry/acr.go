package registry

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
)

// ACR's login, as the kubelets' ACR providers and containerd go through it:
//   - GET /v2/ answers 401 with a Bearer challenge whose realm is the
//     registry's /oauth2/token and whose service is the registry's name
//     (cloud-provider-azure v1.30.4 pkg/credentialprovider/
//     azure_acr_helper.go receiveChallengeFromLoginServer, and the in-tree
//     copy of Kubernetes v1.29.15 pkg/credentialprovider/azure, require
//     exactly that).
//   - POST /oauth2/exchange swaps an Azure AD token for a registry refresh
//     token (performTokenExchange: grant_type access_token_refresh_token,
//     service, tenant, access_token; answer {"refresh_token"}). Only the
//     cloud can check an AD token and say whether the identity may pull,
//     so the exchange is relayed to it, where the audit and the faults
//     apply to the caller.
//   - The provider hands containerd user ACRUser with the refresh token as
//     password. containerd first POSTs a password grant to the realm, which
//     ACR refuses with 400, then GETs the realm with basic authentication
//     (containerd remotes/docker/authorizer.go: "As of January 2022, ACR is
//     known to return 400"); a refresh_token grant is taken too.
//   - Registry requests then carry the access token as a bearer.

const (
	// SchemeECR and SchemeACR are the registries' logins.
	SchemeECR = "ecr"
	SchemeACR = "acr"
	// ACRUser is the user name of every ACR refresh token
	// (azure_acr_helper.go dockerTokenLoginUsernameGUID).
	ACRUser = "00000000-0000-0000-0000-000000000000"
	// ExchangePath and tokenPath are ACR's token endpoints.
	ExchangePath = "/oauth2/exchange"
	tokenPath    = "/oauth2/token"
)

// acrAccessLife is an access token's life. ACR's is not documented where
// handover could read it; a short one is never kinder: containerd asks
// for a new one when it expires.
const acrAccessLife = 15 * time.Minute

// acrRepository is a repository a registry path names, for the scope of
// the challenge.
var acrRepository = regexp.MustCompile(`^/v2/(.+)/(?:manifests|blobs|tags)/`)

// serveACR answers the registry's name as ACR does.
func (s *Server) serveACR(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == ExchangePath {
		// Relayed as it came: the cloud checks the AD token the form holds.
		s.logged(w, r, func(w http.ResponseWriter, _ *Record) { s.relay.ServeHTTP(w, r) })
		return
	}
	s.logged(w, r, func(w http.ResponseWriter, rec *Record) {
		if r.URL.Path == tokenPath {
			s.acrToken(w, r, rec)
			return
		}
		if token, ok := bearer(r); ok {
			rec.Principal, ok = ecrtoken.Verify(s.accessKey(), token, s.opts.Now())
			if ok {
				s.read(w, r)
				return
			}
		}
		challenge := `Bearer realm="https://` + s.opts.Host + tokenPath + `",service="` + s.opts.Host + `"`
		if m := acrRepository.FindStringSubmatch(r.URL.Path); m != nil {
			challenge += `,scope="repository:` + m[1] + `:pull"`
		}
		w.Header().Set("WWW-Authenticate", challenge)
		writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "authentication required")
	})
}

// acrToken answers the realm: an access token for a valid refresh token,
// given as basic authentication (GET) or a refresh_token grant (POST).
func (s *Server) acrToken(w http.ResponseWriter, r *http.Request, rec *Record) {
	var refresh string
	switch r.Method {
	case http.MethodGet:
		_ = r.ParseForm() // the query's service and scope
		if user, password, ok := r.BasicAuth(); ok && user == s.opts.User {
			refresh = password
		}
	case http.MethodPost:
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "refresh_token" {
			writeError(w, http.StatusBadRequest, "UNSUPPORTED", "grant_type: this registry's token service takes refresh_token grants only")
			return
		}
		refresh = r.PostForm.Get("refresh_token")
	default:
		writeError(w, http.StatusMethodNotAllowed, "UNSUPPORTED", r.Method+" "+tokenPath)
		return
	}
	if service := r.Form.Get("service"); service != "" && service != s.opts.Host {
		writeError(w, http.StatusBadRequest, "UNSUPPORTED", "service "+strconv.Quote(service)+": this is "+s.opts.Host)
		return
	}
	who, ok := ecrtoken.Verify(s.opts.TokenKey, refresh, s.opts.Now())
	if !ok {
		writeError(w, http.StatusUnauthorized, "UNAUTHORIZED", "the refresh token is not valid or has expired")
		return
	}
	rec.Principal = who
	expires := s.opts.Now().Add(acrAccessLife).Truncate(time.Second)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": ecrtoken.Password(s.accessKey(), who, expires)})
}

// accessKey signs access tokens: apart from the refresh tokens' key, so
// that neither passes for the other.
func (s *Server) accessKey() []byte {
	k := sha256.Sum256(append([]byte("acr access token\x00"), s.opts.TokenKey...))
	return k[:]
}

// bearer is a request's bearer token.
func bearer(r *http.Request) (string, bool) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return token, ok && token != ""
}
