package observe

import (
	"context"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/timeline"
)

// methods records the methods a server was sent.
type methods struct {
	mu   sync.Mutex
	seen map[string]int
}

func (m *methods) record(r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil {
		m.seen = map[string]int{}
	}
	m.seen[r.Method+" "+r.URL.Path]++
}

// TestForeignObserverOnlyReads observes a fake cluster from outside: the
// API client, the API probe and the managers are sent reads only, and the
// managers given, verified by a CA, are sampled by health and metrics.
func TestForeignObserverOnlyReads(t *testing.T) {
	var sent methods
	mgr := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.record(r)
		if r.URL.Path == "/metrics" {
			_, _ = w.Write([]byte(`running_managed_controllers{manager="x",name="service"} 1` + "\n"))
			return
		}
		_, _ = w.Write([]byte("[+]ping ok\n[+]service-lb-controller ok\nhealthz check passed\n"))
	}))
	defer mgr.Close()
	api := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent.record(r) }))
	defer api.Close()
	u, _ := url.Parse(mgr.URL)
	client := fake.NewSimpleClientset(
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}})
	var buf testenv.LockedBuffer
	ca := x509.NewCertPool()
	ca.AddCert(mgr.Certificate())
	reach, err := Foreign(ForeignOptions{Managers: []ManagerURL{{Endpoint: Endpoint{Manager: "cloud-controller-manager", Instance: "cp-1"}, URL: u}},
		CA: ca, Credential: Credential{Token: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	ob := Start(context.Background(), Options{Reach: reach, Client: client, REST: &rest.Config{Host: api.URL}, Timeline: timeline.NewWriter(&buf),
		Controllers: []string{"service-lb-controller"}, ManagedFields: true, HealthEvery: 20 * time.Millisecond, MetricsEvery: 20 * time.Millisecond,
		ProbeEvery: 20 * time.Millisecond})
	time.Sleep(300 * time.Millisecond)
	ob.Stop()

	for _, a := range client.Actions() {
		if v := a.GetVerb(); v != "get" && v != "list" && v != "watch" {
			t.Errorf("the observer sent %s %s", v, a.GetResource())
		}
	}
	sent.mu.Lock()
	for k := range sent.seen {
		if !strings.HasPrefix(k, "GET ") {
			t.Errorf("a server was sent %s", k)
		}
	}
	sent.mu.Unlock()
	evs, err := timeline.Read(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, e := range evs {
		if e.Kind == timeline.ObserverStart && e.Attrs[timeline.FixedManagers] != "cloud-controller-manager@cp-1" {
			t.Errorf("observer.start declares %q", e.Attrs[timeline.FixedManagers])
		}
		if (e.Kind == timeline.Health || e.Kind == timeline.Metrics) && e.Attrs["controllers"] == "service-lb-controller" && e.Instance == "cp-1" {
			n[e.Kind]++
		}
		if e.Kind == timeline.Probe && e.Attrs["ok"] == "true" {
			n["probe"]++
		}
	}
	if n[timeline.Health] < 3 || n[timeline.Metrics] < 3 || n["probe"] < 3 {
		t.Fatalf("samples %v: the given manager and the endpoint should be sampled every 20 ms", n)
	}
}

// A given manager that refuses even an anonymous /healthz is no evidence:
// its samples are left out (the evidence check sees the hole), and the
// check before observing says what is wrong. One that is down is fine, and
// sampled.
func TestGivenManagersThatSayNothing(t *testing.T) {
	forbidden := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusForbidden) }))
	defer forbidden.Close()
	closing, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer closing.Close()
	go func() {
		for {
			c, err := closing.Accept()
			if err != nil {
				return
			}
			c.Close() // an SSH tunnel to a port nothing listens on
		}
	}()
	fu, _ := url.Parse(forbidden.URL)
	du, _ := url.Parse("https://" + closing.Addr().String())
	eps := []ManagerURL{{Endpoint: Endpoint{Manager: "kube-controller-manager", Instance: "refusing"}, URL: fu},
		{Endpoint: Endpoint{Manager: "cloud-controller-manager", Instance: "down"}, URL: du}}
	reach, err := Foreign(ForeignOptions{Managers: eps})
	if err != nil {
		t.Fatal(err)
	}
	err = CheckManagers(context.Background(), reach)
	if err == nil || !strings.Contains(err.Error(), "refusing") || !strings.Contains(err.Error(), "anonymous /healthz") || strings.Contains(err.Error(), "down") {
		t.Fatalf("CheckManagers = %v", err)
	}
	var buf testenv.LockedBuffer
	ob := Start(context.Background(), Options{Reach: reach, Client: fake.NewSimpleClientset(), REST: &rest.Config{Host: forbidden.URL},
		Timeline: timeline.NewWriter(&buf), Controllers: []string{"service-lb-controller"}, HealthEvery: 20 * time.Millisecond,
		MetricsEvery: 20 * time.Millisecond, NoLBProbes: true})
	time.Sleep(200 * time.Millisecond)
	ob.Stop()
	evs, err := timeline.Read(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, e := range evs {
		if e.Kind == timeline.Health || e.Kind == timeline.Metrics {
			n[e.Instance]++
			if e.Instance == "down" && (e.Attrs["up"] != "false" || e.Attrs["down"] != "true") {
				t.Fatalf("a manager down: %+v", e)
			}
		}
	}
	if n["refusing"] != 0 || n["down"] < 4 {
		t.Fatalf("samples by instance %v: want none of the refusing manager, several of the one down", n)
	}
}
