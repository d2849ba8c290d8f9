package azure_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/azure"
)

const (
	cluster    = "c"
	location   = "simregion1"
	token      = "rig-token"
	adminToken = "rig-admin-token"
	// ccmClient and kcmClient are the managers' user-assigned
	// identities.
	ccmClient = "11111111-2222-3333-4444-555555555555"
	kcmClient = "22222222-3333-4444-5555-666666666666"
)

// backends are the cloud's machines and network, in memory. They record
// the load balancers the cloud makes, each with an address of its own.
type backends struct {
	mu        sync.Mutex
	instances []api.Instance
	routes    []api.Route
	lbs       map[string]api.LoadBalancer
	made      int
	ips       map[string]bool // every address handed out
	// failing names a load balancer the backend cannot change.
	failing string
}

func (b *backends) List(context.Context) ([]api.Instance, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]api.Instance(nil), b.instances...), nil
}
func (b *backends) Terminate(context.Context, string) error { return nil }
func (b *backends) Ensure(_ context.Context, lb api.LoadBalancer) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if lb.Name == b.failing {
		return "", errors.New("the backend cannot change " + lb.Name)
	}
	if b.lbs == nil {
		b.lbs = map[string]api.LoadBalancer{}
	}
	if old, ok := b.lbs[lb.Name]; ok {
		lb.IP = old.IP
	} else {
		b.made++
		lb.IP = "172.18.1." + strconv.Itoa(b.made)
		if b.ips == nil {
			b.ips = map[string]bool{}
		}
		b.ips[lb.IP] = true
	}
	b.lbs[lb.Name] = lb
	return lb.IP, nil
}
func (b *backends) Delete(_ context.Context, name string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.lbs, name)
	return nil
}

// lb is the load balancer of that name as the cloud last made it.
func (b *backends) lb(name string) (api.LoadBalancer, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	lb, ok := b.lbs[name]
	return lb, ok
}

// handedOut: ip is the address of a load balancer the cloud made.
func (b *backends) handedOut(ip string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ips[ip]
}

// count is how many load balancers the cloud has.
func (b *backends) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.lbs)
}
func (b *backends) Sync(_ context.Context, routes []api.Route) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.routes = routes
	return nil
}

// rig is a simulated cloud with its Azure face.
type rig struct {
	cloud   *cloudserver.Server
	cloudAt string
	face    *azure.Face
	armAt   string
	imdsAt  string
	back    *backends
	network azure.Network
	now     time.Time
	mu      sync.Mutex
	records []azure.Record
}

func instance(name, zone string, ips ...string) api.Instance {
	in := api.Instance{Name: name, Type: "sim.worker", Region: cloudserver.Region, Zone: zone, State: api.StateRunning}
	for _, ip := range ips {
		in.Addresses = append(in.Addresses, api.Address{Type: "InternalIP", Address: ip})
	}
	return in
}

// newRig serves a cloud of three instances, c-local at 127.0.0.1 (the
// test's own address, so the metadata service answers the test as it).
func newRig(t *testing.T, dir string, opts ...func(*azure.Options)) *rig {
	t.Helper()
	return newRigOf(t, dir, cloudserver.Registry{}, opts...)
}

// newRigOf is newRig with the cloud's registry.
func newRigOf(t *testing.T, dir string, reg cloudserver.Registry, opts ...func(*azure.Options)) *rig {
	t.Helper()
	zones := cloudserver.Zones()
	r := &rig{back: &backends{instances: []api.Instance{instance("c-control-plane", zones[0], "172.18.0.2"),
		instance("c-worker", zones[1], "172.18.0.3"), instance("c-local", zones[2], "127.0.0.1")}},
		network: azure.Network{Cluster: cluster, Location: location, Zones: zones, CIDR: "172.18.0.0/16"},
		now:     time.Now()}
	s, err := cloudserver.New(cloudserver.Options{Backends: cloudserver.Backends{Instances: r.back, LoadBalancers: r.back, Routes: r.back},
		StatePath: filepath.Join(dir, "state.json"), AuditPath: filepath.Join(dir, "audit.jsonl"), Token: token, AdminToken: adminToken, Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	cs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { cs.Close(); s.Close() })
	r.cloud, r.cloudAt = s, cs.URL
	o := azure.Options{Cloud: amazon.LocalCloud(s.Handler(), token), Network: r.network, StatePath: filepath.Join(dir, "azure.json"),
		Identities: map[string]string{ccmClient: "cloud-controller-manager", kcmClient: "kube-controller-manager"}, TokenKey: []byte("the rig's token key, 32 bytes..."),
		Terminated: s.Terminated, Now: r.clock, Record: r.record}
	for _, opt := range opts {
		opt(&o)
	}
	r.face, err = azure.New(o)
	if err != nil {
		t.Fatal(err)
	}
	arm := httptest.NewServer(r.face.Handler())
	imds := httptest.NewServer(r.face.IMDS())
	t.Cleanup(func() { arm.Close(); imds.Close() })
	r.armAt, r.imdsAt = arm.URL, imds.URL
	return r
}

func (r *rig) clock() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now
}

func (r *rig) advance(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = r.now.Add(d)
}

func (r *rig) record(rec azure.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.records = append(r.records, rec)
}

func (r *rig) calls() []azure.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]azure.Record(nil), r.records...)
}

func (r *rig) admin() *api.Client {
	c := api.NewClient(r.cloudAt, "handover")
	c.Token = adminToken
	return c
}

// answer is an HTTP answer, its body decoded.
type answer struct {
	status int
	header http.Header
	body   map[string]any
	raw    []byte
}

// code is an ARM error answer's code.
func (a answer) code() string {
	e, _ := a.body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func do(t *testing.T, method, url string, header map[string]string, body any) answer {
	t.Helper()
	var in io.Reader
	if body != nil {
		raw, ok := body.([]byte)
		if !ok {
			raw, _ = json.Marshal(body)
		}
		in = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, url, in)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, raw: raw}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

// token asks the metadata service for an ARM token as the test's VM
// (c-local), as clientID's identity ("" its own).
func (r *rig) token(t *testing.T, clientID string) string {
	t.Helper()
	url := r.imdsAt + "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=https%3A%2F%2Fmanagement.azure.com%2F"
	if clientID != "" {
		url += "&client_id=" + clientID
	}
	a := do(t, http.MethodGet, url, map[string]string{"Metadata": "true"}, nil)
	tok, _ := a.body["access_token"].(string)
	if a.status != http.StatusOK || tok == "" {
		t.Fatalf("no token: %d %s", a.status, a.raw)
	}
	return tok
}

// arm calls ARM at path (under the cluster's resource group's providers
// unless it starts with /) with a token.
func (r *rig) arm(t *testing.T, tok, method, path, version string, header map[string]string, body any) answer {
	t.Helper()
	if !strings.HasPrefix(path, "/") {
		path = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/" + cluster + "/providers/" + path
	}
	h := map[string]string{"Authorization": "Bearer " + tok}
	for k, v := range header {
		h[k] = v
	}
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	return do(t, method, r.armAt+path+sep+"api-version="+version, h, body)
}

// The face's names are the ones both providers form.
func TestProviderIDIsTheProvidersForm(t *testing.T) {
	n := azure.Network{Cluster: "Kind", Location: location}
	want := "azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/kind/providers/Microsoft.Compute/virtualMachines/kind-worker"
	if got := n.ProviderID("kind-worker"); got != want {
		t.Errorf("ProviderID %q, want %q", got, want)
	}
}

// A face's state outlives it: a load balancer PUT before a restart is
// there after it, and a public IP keeps its address and its one load
// balancer in the cloud.
func TestStateOutlivesTheFace(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, dir)
	tok := r.token(t, ccmClient)
	if a := r.arm(t, tok, http.MethodPut, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, lbBody(nil)); a.status != http.StatusCreated {
		t.Fatalf("PUT: %d %s", a.status, a.raw)
	}
	_, addr := r.putPIP(t, tok)
	again := newRig(t, dir)
	if a := again.arm(t, tok, http.MethodGet, "Microsoft.Network/loadBalancers/c", "2022-07-01", nil, nil); a.status != http.StatusOK {
		t.Errorf("after a restart: %d %s", a.status, a.raw)
	}
	pip := again.arm(t, tok, http.MethodPut, pipPath, "2022-07-01", nil, pipBody(map[string]any{"k8s-azure-service": "load/web"}))
	if got, _ := pip.body["properties"].(map[string]any)["ipAddress"].(string); got != addr || again.back.count() != 0 {
		t.Errorf("the public IP after a restart: %s; load balancers made anew: %d", pip.raw, again.back.count())
	}
}
