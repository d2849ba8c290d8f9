package azure

import (
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/handover-sh/handover/simulate/cloudserver/byaddress"
)

// IMDSComponent is the caller the metadata service lists instances as:
// handover's own, so the cloud's throttle never holds it (the metadata
// service is the host's, not the subscription's API).
const IMDSComponent = "handover-imds"

// The metadata service's answers follow "Azure Instance Metadata Service"
// in Azure's virtual machine documentation (learn.microsoft.com
// /azure/virtual-machines/instance-metadata-service): its "Errors and
// debugging" table, "Versioning" (the 400 that lists the newest versions),
// "Rate limiting" (5 requests a second a VM) and "Security and
// authentication" (Metadata: true required, X-Forwarded-For refused).

// instanceVersions are the /metadata/instance versions served: the
// documentation's list up to 2021-12-13, among them the in-tree
// provider's 2019-03-11 (legacy-cloud-providers@v0.29.15
// azure/azure_instance_metadata.go imdsInstanceAPIVersion) and
// cloud-provider-azure's 2021-10-01 (v1.30.4 pkg/consts
// ImdsInstanceAPIVersion).
var instanceVersions = []string{"2017-03-01", "2017-04-02", "2017-08-01", "2017-10-01", "2017-12-01", "2018-02-01",
	"2018-04-02", "2018-10-01", "2019-02-01", "2019-03-11", "2019-04-30", "2019-06-01", "2019-06-04", "2019-08-01",
	"2019-08-15", "2019-11-01", "2020-06-01", "2020-07-15", "2020-09-01", "2020-10-01", "2020-12-01", "2021-01-01",
	"2021-02-01", "2021-03-01", "2021-05-01", "2021-10-01", "2021-11-01", "2021-11-15", "2021-12-13"}

// loadBalancerVersions are /metadata/loadbalancer's: it came with
// 2020-10-01, the version both providers ask it at (ImdsLoadBalancerAPIVersion).
var loadBalancerVersions = []string{"2020-10-01", "2020-12-01", "2021-01-01", "2021-02-01", "2021-03-01", "2021-05-01",
	"2021-10-01", "2021-11-01", "2021-11-15", "2021-12-13"}

// tokenVersions are the identity endpoint's: adal's (go-autorest
// adal@v0.9.23 token.go msiAPIVersion) and azidentity's.
var tokenVersions = []string{"2018-02-01", "2019-08-01"}

// imdsRate is how many requests a VM may make a second.
const imdsRate = 5

// IMDS is the instance metadata service over the cloud's instances,
// answering each VM by the address its request comes from.
func (f *Face) IMDS() http.Handler {
	m := &imds{face: f, lookup: &byaddress.Instances{Cloud: f.opts.Cloud, Component: IMDSComponent, TTL: time.Second, Addresses: internalIPs}, limits: map[string]*rate.Limiter{}}
	return m
}

type imds struct {
	face   *Face
	lookup *byaddress.Instances
	mu     sync.Mutex
	limits map[string]*rate.Limiter
}

// imdsAnswer is one metadata answer: a JSON body, or an error body
// under status.
type imdsAnswer struct {
	status int
	body   any
	who    caller
}

func (m *imds) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := Record{Time: m.face.opts.Now(), Service: "imds", Action: r.URL.Path, RemoteAddr: r.RemoteAddr, APIVersion: r.URL.Query().Get("api-version")}
	a := m.answer(r)
	rec.Status, rec.Principal, rec.Node = a.status, a.who.Principal, a.who.Node
	if a.status >= 400 {
		rec.Code, rec.Message = errorText(a.body)
	}
	if a.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	writeJSON(w, a.status, a.body)
	if m.face.opts.Record != nil {
		m.face.opts.Record(rec)
	}
}

// answer checks what every metadata request needs, then finds the caller's
// VM and answers the path.
func (m *imds) answer(r *http.Request) imdsAnswer {
	ip, _, _ := net.SplitHostPort(r.RemoteAddr)
	if r.Method != http.MethodGet {
		return imdsError(http.StatusMethodNotAllowed, "Method not allowed. Only GET requests are supported.")
	}
	if r.Header.Get("X-Forwarded-For") != "" {
		return imdsError(http.StatusBadRequest, "Bad request. Requests with an X-Forwarded-For header are refused.")
	}
	if !m.allow(ip) {
		return imdsError(http.StatusTooManyRequests, "Too many requests. The service takes at most 5 requests a second from a VM.")
	}
	in, ok, err := m.lookup.Find(ip)
	switch {
	case err != nil:
		return imdsError(http.StatusInternalServerError, "Internal server error: the cloud could not be asked: "+err.Error())
	case !ok:
		return imdsError(http.StatusNotFound, "No VM has the address "+ip+".")
	}
	switch r.URL.Path {
	case "/metadata/identity/oauth2/token":
		return m.token(r, in)
	case "/metadata/instance":
		return m.document(r, instanceVersions, func() any { return m.face.instanceDocument(in) })
	case "/metadata/loadbalancer":
		return m.document(r, loadBalancerVersions, func() any { return m.face.loadBalancerDocument(in) })
	}
	return imdsError(http.StatusNotFound, "The requested element doesn't exist.")
}

// allow: the VM at ip is within its rate.
func (m *imds) allow(ip string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	l, ok := m.limits[ip]
	if !ok {
		l = rate.NewLimiter(imdsRate, imdsRate)
		m.limits[ip] = l
	}
	return l.Allow()
}

// document answers an instance or load balancer document: JSON, with the
// Metadata header, at a served version.
func (m *imds) document(r *http.Request, served []string, doc func() any) imdsAnswer {
	if !metadataHeader(r) {
		return imdsError(http.StatusBadRequest, "Bad request. Required metadata header not specified")
	}
	if f := r.URL.Query().Get("format"); f != "" && f != "json" {
		return imdsError(http.StatusBadRequest, "Bad request. format "+f+" is served for leaf elements only; this is not one")
	}
	v := r.URL.Query().Get("api-version")
	if v == "" || !slices.Contains(served, v) {
		newest := slices.Clone(served[max(0, len(served)-3):])
		slices.Reverse(newest)
		return imdsAnswer{status: http.StatusBadRequest, body: map[string]any{
			"error":           "Bad request. api-version is invalid or was not specified in the request. For more information refer to aka.ms/azureimds",
			"newest-versions": newest,
		}}
	}
	return imdsAnswer{status: http.StatusOK, body: doc()}
}

// metadataHeader: the request carries Metadata: true (any case; the
// providers send "True", adal "true").
func metadataHeader(r *http.Request) bool {
	v := r.Header.Get("Metadata")
	return v == "true" || v == "True" || v == "TRUE"
}

func imdsError(status int, msg string) imdsAnswer {
	return imdsAnswer{status: status, body: map[string]string{"error": msg}}
}

// errorText is an error body's code and message, for the call log.
func errorText(body any) (string, string) {
	switch b := body.(type) {
	case map[string]string:
		return b["error"], b["error_description"]
	case map[string]any:
		s, _ := b["error"].(string)
		return "", s
	}
	return "", ""
}
