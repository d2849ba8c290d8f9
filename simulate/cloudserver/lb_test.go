package cloudserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

func TestLBConfigFor(t *testing.T) {
	got := LBConfigFor(api.LoadBalancerSpec{Ports: []api.Port{{Port: 80, NodePort: 30080, Protocol: "tcp"}},
		Nodes: []string{"172.18.0.4", "172.18.0.5"}})
	want := LBConfig{Listeners: []LBListener{{Port: 80, Protocol: "TCP", Backends: []string{"172.18.0.4:30080", "172.18.0.5:30080"}}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
}

func TestLBServerRelaysAndFollowsConfig(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") }))
	defer backend.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	write := func(backends ...string) {
		raw, _ := json.Marshal(LBConfig{Listeners: []LBListener{{Port: int32(port), Protocol: "TCP", Backends: backends}}})
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(strings.TrimPrefix(backend.URL, "http://"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &LBServer{Path: path, Logf: t.Logf}
	go s.Run(ctx, 20*time.Millisecond)
	url := fmt.Sprintf("http://127.0.0.1:%d/", port)
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err := http.Get(url)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(body) == "ok" {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("load balancer never relayed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	write("127.0.0.1:1") // nothing listens there
	time.Sleep(200 * time.Millisecond)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Second}
	if resp, err := client.Get(url); err == nil {
		resp.Body.Close()
		t.Fatal("relayed to a backend that was removed")
	}
}

// Load balancers of a cluster with a long name get containers of their own:
// names cut at 63 characters once made every one share a single container.
func TestLoadBalancerContainerNamesStayDistinct(t *testing.T) {
	for _, cluster := range []string{"c", "suite-fault-leader-kill-after", strings.Repeat("x", 70)} {
		d := DockerLoadBalancers{Cluster: cluster}
		a := d.container(cluster + "-a0b0aaa9518384fedbe19bfed31e4aad")
		b := d.container(cluster + "-aaf7f59a478e446edb58e45d3cbc8b98")
		if a == b || len(a) > 63 || len(b) > 63 || a != d.container(cluster+"-a0b0aaa9518384fedbe19bfed31e4aad") {
			t.Errorf("cluster %q: containers %q and %q", cluster, a, b)
		}
	}
}

// A load balancer with no ports is a reserved address: the cloud makes it
// and gives it an address, its container listens on nothing, and a later
// update gives it ports. Ports must still be whole.
func TestAPortlessLoadBalancerIsAReservedAddress(t *testing.T) {
	r := newRig(t, t.TempDir())
	c := r.client("cloud-controller-manager")
	ctx := context.Background()
	lb, err := c.EnsureLoadBalancer(ctx, "", "pip", api.LoadBalancerSpec{Service: "default/web"})
	if err != nil {
		t.Fatalf("a portless load balancer: %v", err)
	}
	if lb.IP == "" || len(r.fakes.lbs["pip"].Spec.Ports) != 0 {
		t.Fatalf("made %+v, backend has %+v", lb, r.fakes.lbs["pip"])
	}
	if cfg := LBConfigFor(lb.Spec); len(cfg.Listeners) != 0 {
		t.Errorf("a reserved address listens on %+v", cfg.Listeners)
	}
	ports := []api.Port{{Port: 80, NodePort: 30080, Protocol: "TCP"}}
	if _, err := c.UpdateLoadBalancer(ctx, "", "pip", api.LoadBalancerSpec{Service: "default/web", Ports: ports, Nodes: []string{"172.18.0.4"}}); err != nil {
		t.Fatal(err)
	}
	if got := r.fakes.lbs["pip"].Spec.Ports; !reflect.DeepEqual(got, ports) {
		t.Errorf("ports given later: %+v", got)
	}
	var se *api.StatusError
	if _, err := c.EnsureLoadBalancer(ctx, "", "half", api.LoadBalancerSpec{Ports: []api.Port{{Port: 80}}}); !errors.As(err, &se) || se.Code != http.StatusBadRequest {
		t.Errorf("a port without a node port: %v, want 400", err)
	}
}

// A port the configuration drops stops listening: a frontend whose rule
// is removed forwards nothing more.
func TestLBServerClosesPortsItNoLongerHas(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") }))
	defer backend.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	path := filepath.Join(t.TempDir(), "config.json")
	write := func(cfg LBConfig) {
		raw, _ := json.Marshal(cfg)
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(LBConfig{Listeners: []LBListener{{Port: int32(port), Protocol: "TCP", Backends: []string{strings.TrimPrefix(backend.URL, "http://")}}}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &LBServer{Path: path, Logf: t.Logf}
	go s.Run(ctx, 20*time.Millisecond)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waitFor(t, "the port to listen", func() bool { return dials(addr) })
	write(LBConfig{})
	waitFor(t, "the port to close", func() bool { return !dials(addr) })
}

func dials(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5s for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// With a cloud's health check the load balancer sends traffic to a node
// only while that node passes the check on its own port and path, and
// closes a connection it has no node in service for.
func TestLBServerHonoursTheHealthCheck(t *testing.T) {
	traffic := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") }))
	defer traffic.Close()
	var healthy atomicBool
	health := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" || !healthy.get() {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer health.Close()
	_, hcPort, _ := net.SplitHostPort(strings.TrimPrefix(health.URL, "http://"))
	port := freePort(t)
	path := filepath.Join(t.TempDir(), "config.json")
	var hp int32
	fmt.Sscan(hcPort, &hp)
	raw, _ := json.Marshal(LBConfig{Listeners: []LBListener{{Port: int32(port), Protocol: "TCP", Backends: []string{strings.TrimPrefix(traffic.URL, "http://")}}},
		HealthCheck: &api.HealthCheck{Protocol: "HTTP", Port: hp, Path: "/healthz", Interval: 1, Timeout: 1, Healthy: 1, Unhealthy: 1}})
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	answers := serveLB(t, path, port, time.Second)
	time.Sleep(1500 * time.Millisecond)
	if answers() {
		t.Fatal("relayed to a node that never passed its health check")
	}
	healthy.set(true)
	waitFor(t, "the node in service", answers)
	healthy.set(false)
	waitFor(t, "the node out of service", func() bool { return !answers() })
}

type atomicBool struct {
	mu sync.Mutex
	v  bool
}

func (b *atomicBool) get() bool  { b.mu.Lock(); defer b.mu.Unlock(); return b.v }
func (b *atomicBool) set(v bool) { b.mu.Lock(); defer b.mu.Unlock(); b.v = v }

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// What the network drops never arrives: a node whose health-check port is
// dropped never comes into service, one whose traffic port is dropped
// passes its check and still answers nothing, and the node answers once
// nothing is dropped.
func TestLBServerLosesWhatTheNetworkDrops(t *testing.T) {
	traffic := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "ok") }))
	defer traffic.Close()
	health := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer health.Close()
	backend := strings.TrimPrefix(traffic.URL, "http://")
	hcAt := strings.TrimPrefix(health.URL, "http://")
	_, hcPort, _ := net.SplitHostPort(hcAt)
	var hp int32
	fmt.Sscan(hcPort, &hp)
	port := freePort(t)
	path := filepath.Join(t.TempDir(), "config.json")
	configure := func(dropped ...string) {
		t.Helper()
		raw, _ := json.Marshal(LBConfig{Listeners: []LBListener{{Port: int32(port), Protocol: "TCP", Backends: []string{backend}}}, Dropped: dropped,
			HealthCheck: &api.HealthCheck{Protocol: "HTTP", Port: hp, Path: "/healthz", Interval: 1, Timeout: 1, Healthy: 1, Unhealthy: 1}})
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	configure(hcAt)
	answers := serveLB(t, path, port, 2*time.Second)
	time.Sleep(2500 * time.Millisecond)
	if answers() {
		t.Fatal("relayed to a node whose health check the network drops")
	}
	configure()
	waitFor(t, "the node in service", answers)
	configure(backend)
	time.Sleep(200 * time.Millisecond)
	for range 3 {
		if answers() {
			t.Fatal("a connection reached a node port the network drops")
		}
	}
}

// The listeners drain as the load balancer's connection draining says:
// unset, a leaving backend's connections run on; off, they are closed at
// once; on, within the timeout.
func TestOnLeave(t *testing.T) {
	if onLeave(nil) != nil {
		t.Error("no draining set, yet connections are cut")
	}
	if d := onLeave(&api.Draining{}); d == nil || d.Timeout != 0 {
		t.Errorf("draining off: %+v", d)
	}
	if d := onLeave(&api.Draining{Enabled: true, Timeout: 30}); d == nil || d.Timeout != 30*time.Second {
		t.Errorf("draining 30 s: %+v", d)
	}
}

// serveLB runs an LBServer on the configuration at path until the test
// ends, waits for its listener on port, and returns whether an HTTP GET
// through it is answered 200 (given timeout).
func serveLB(t *testing.T, path string, port int, timeout time.Duration) (answers func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go (&LBServer{Path: path, Logf: t.Logf}).Run(ctx, 20*time.Millisecond)
	url := fmt.Sprintf("http://127.0.0.1:%d/", port)
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: timeout}
	waitFor(t, "the listener", func() bool { return dials(fmt.Sprintf("127.0.0.1:%d", port)) })
	return func() bool {
		resp, err := client.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
}
