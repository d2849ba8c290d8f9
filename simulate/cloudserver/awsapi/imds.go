package awsapi

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Instance is what the instance metadata service tells one instance of
// itself: what the aws providers read (legacy-cloud-providers aws/aws.go
// and cloud-provider-aws pkg/providers/v1/aws.go: instance-id,
// placement/availability-zone, local-hostname, local-ipv4, the interfaces'
// macs, device numbers, local-ipv4s and vpc-id; public-ipv4 and
// public-hostname, which a private instance does not have) and what
// aws-sdk-go's ec2metadata client reads for Region (the identity document).
type Instance struct {
	ID, Type, Zone, Region string
	PrivateIP, PrivateDNS  string
	MAC, VPC, Subnet       string
	Account, Image         string
	Launched               time.Time
	// Interfaces beyond the primary (MAC, PrivateIP, PrivateDNS, device
	// number 0), each with its own device number.
	More []Interface
}

// Interface is one further network interface of an instance.
type Interface struct {
	MAC, PrivateIP, PrivateDNS string
	Device                     int
}

// tree is the instance's metadata as paths under /latest/; a directory is
// every path with its prefix.
func (in Instance) tree() map[string]string {
	doc, _ := json.Marshal(map[string]any{
		"instanceId": in.ID, "instanceType": in.Type, "availabilityZone": in.Zone, "region": in.Region,
		"privateIp": in.PrivateIP, "accountId": in.Account, "imageId": in.Image, "architecture": "x86_64",
		"pendingTime": in.Launched.UTC().Format(time.RFC3339), "version": "2017-09-30",
	})
	t := map[string]string{
		"meta-data/instance-id":                 in.ID,
		"meta-data/instance-type":               in.Type,
		"meta-data/ami-id":                      in.Image,
		"meta-data/placement/availability-zone": in.Zone,
		"meta-data/placement/region":            in.Region,
		"meta-data/local-ipv4":                  in.PrivateIP,
		"meta-data/local-hostname":              in.PrivateDNS,
		"meta-data/hostname":                    in.PrivateDNS,
		"meta-data/mac":                         in.MAC,
		"dynamic/instance-identity/document":    string(doc),
	}
	for _, i := range append([]Interface{{MAC: in.MAC, PrivateIP: in.PrivateIP, PrivateDNS: in.PrivateDNS}}, in.More...) {
		mac := "meta-data/network/interfaces/macs/" + i.MAC + "/"
		t[mac+"device-number"] = strconv.Itoa(i.Device)
		t[mac+"local-ipv4s"] = i.PrivateIP
		t[mac+"local-hostname"] = i.PrivateDNS
		t[mac+"mac"] = i.MAC
		t[mac+"subnet-id"] = in.Subnet
		t[mac+"vpc-id"] = in.VPC
	}
	return t
}

// IMDS is the instance metadata service: it answers each instance about
// itself, telling them apart by the address a request comes from, as the
// link-local service does. Sessions (IMDSv2) are offered and, when
// RequireToken is set, required.
type IMDS struct {
	// Lookup finds the instance an address belongs to; an error is the
	// cloud's, not the caller's (503: ask again).
	Lookup       func(ip string) (Instance, bool, error)
	RequireToken bool
	Now          func() time.Time

	mu     sync.Mutex
	tokens *tokenTable
}

// Limits of a session token's TTL (the IMDS user guide: 1 s to 6 h).
const maxTokenTTL = 21600

func (m *IMDS) now() time.Time {
	if m.Now == nil {
		return time.Now()
	}
	return m.Now()
}

func (m *IMDS) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ip, _, _ := net.SplitHostPort(r.RemoteAddr)
	in, ok, err := m.Lookup(ip)
	if err != nil {
		http.Error(w, "the cloud could not be asked: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	if !ok {
		http.Error(w, "no instance has the address "+ip, http.StatusNotFound)
		return
	}
	if r.Method == http.MethodPut && r.URL.Path == "/latest/api/token" {
		m.issue(w, r, ip)
		return
	}
	if r.Method != http.MethodGet {
		http.Error(w, "", http.StatusMethodNotAllowed)
		return
	}
	if !m.authorised(r, ip) {
		http.Error(w, "", http.StatusUnauthorized)
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, "/latest/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	body, ok := lookup(in.tree(), path)
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	_, _ = w.Write([]byte(body))
}

func (m *IMDS) issue(w http.ResponseWriter, r *http.Request, ip string) {
	ttl, err := strconv.Atoi(r.Header.Get("X-Aws-Ec2-Metadata-Token-Ttl-Seconds"))
	if err != nil || ttl < 1 || ttl > maxTokenTTL {
		http.Error(w, "", http.StatusBadRequest)
		return
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	token := hex.EncodeToString(b)
	m.mu.Lock()
	if m.tokens == nil {
		m.tokens = newTokenTable()
	}
	now := m.now()
	ok := m.tokens.issue(token, ip, now, now.Add(time.Duration(ttl)*time.Second))
	m.mu.Unlock()
	if !ok {
		// The IMDS throttles each instance's queries ("Query throttling"
		// in the EC2 user guide's "Retrieve instance metadata"): 429, which
		// aws-sdk-go's token provider does not take for IMDSv2 being off
		// (it falls back to IMDSv1 on 403, 404 and 405 only).
		w.Header().Set("Retry-After", "1")
		http.Error(w, "this instance holds too many live session tokens: reuse one until it expires", http.StatusTooManyRequests)
		return
	}
	w.Header().Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", strconv.Itoa(ttl))
	_, _ = w.Write([]byte(token))
}

// authorised: a token, when given, is one this instance was issued and is
// live; none is needed unless RequireToken.
func (m *IMDS) authorised(r *http.Request, ip string) bool {
	token := r.Header.Get("X-Aws-Ec2-Metadata-Token")
	if token == "" {
		return !m.RequireToken
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.tokens != nil && m.tokens.valid(token, ip, m.now())
}

// lookup answers a path of the tree: a value, or a directory's entries one
// a line (a subdirectory with a trailing slash).
func lookup(tree map[string]string, path string) (string, bool) {
	if v, ok := tree[path]; ok {
		return v, true
	}
	dir := strings.TrimSuffix(path, "/") + "/"
	if path == "" {
		dir = ""
	}
	seen := map[string]bool{}
	for p := range tree {
		rest, ok := strings.CutPrefix(p, dir)
		if !ok {
			continue
		}
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			rest = rest[:i+1]
		}
		seen[rest] = true
	}
	if len(seen) == 0 {
		return "", false
	}
	entries := make([]string, 0, len(seen))
	for e := range seen {
		entries = append(entries, e)
	}
	sort.Strings(entries)
	return strings.Join(entries, "\n"), true
}
