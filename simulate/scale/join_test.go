package scale

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/timeline"
)

// noContainers is a cloud whose only instances are virtual.
type noContainers struct{}

func (noContainers) List(context.Context) ([]api.Instance, error) { return nil, nil }
func (noContainers) Ensure(context.Context, api.LoadBalancer) (string, error) {
	return "172.18.100.1", nil
}
func (noContainers) Delete(context.Context, string) error    { return nil }
func (noContainers) Sync(context.Context, []api.Route) error { return nil }

// written collects what the fleet puts on its timeline.
type written struct {
	mu  sync.Mutex
	evs []timeline.Event
}

func (w *written) joins() []timeline.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []timeline.Event
	for _, e := range w.evs {
		if e.Kind == timeline.ScaleJoin {
			out = append(out, e)
		}
	}
	return out
}

func testFleet(t *testing.T, external bool) (*Fleet, *fake.Clientset, *written, string) {
	t.Helper()
	s, err := cloudserver.New(cloudserver.Options{Backends: cloudserver.Backends{Instances: noContainers{}, LoadBalancers: noContainers{}, Routes: noContainers{}},
		Cluster: "c"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	tl, got := timeline.NewWriter(io.Discard), &written{}
	tl.Subscribe(func(e timeline.Event) { got.mu.Lock(); got.evs = append(got.evs, e); got.mu.Unlock() })
	c := fake.NewSimpleClientset()
	o := Options{Client: c, CloudURL: srv.URL, KubeletVersion: "v1.30.14", Timeline: tl,
		External: func(context.Context) (bool, error) { return external, nil }}
	return &Fleet{o: o, admin: api.NewClient(srv.URL, "handover-scale")}, c, got, srv.URL
}

// An in-tree kubelet registers its node with what it asked the cloud,
// as its own caller; the machine's coming up is on the timeline first.
func TestInTreeKubeletRegistersWithItsProviderID(t *testing.T) {
	f, c, tl, url := testFleet(t, false)
	ctx := context.Background()
	if err := f.join(ctx, "sim-node-0001", "prepare"); err != nil {
		t.Fatal(err)
	}
	n, err := c.CoreV1().Nodes().Get(ctx, "sim-node-0001", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Spec.ProviderID != (behaviour.Behaviour{}).ProviderIDOf("c", "sim-node-0001") || n.Labels[corev1.LabelTopologyZone] == "" ||
		n.Labels[corev1.LabelInstanceTypeStable] != cloudserver.VirtualType || n.Annotations[KwokAnnotation] != "fake" {
		t.Fatalf("registered %+v", n)
	}
	if hasTaint(n, uninitializedTaint) || !hasTaint(n, kwokTaint) || n.Status.Addresses[0].Type != corev1.NodeInternalIP {
		t.Fatalf("taints %v, addresses %v", n.Spec.Taints, n.Status.Addresses)
	}
	audit, err := api.NewClient(url, "handover").Audit(ctx, n.CreationTimestamp.Time.AddDate(-1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	var byKubelet int
	for _, a := range audit {
		if a.Component == "kubelet" && a.Node == "sim-node-0001" {
			byKubelet++
		}
	}
	if byKubelet < 4 {
		t.Errorf("%d calls from the node's kubelet: want its ID, type, zone and addresses asked", byKubelet)
	}
	joins := tl.joins()
	if len(joins) != 1 || joins[0].Attrs["mode"] != "in-tree" || joins[0].Node != "sim-node-0001" {
		t.Fatalf("timeline joins %+v", joins)
	}
}

// An external kubelet registers tainted, with no ProviderID: the
// cloud-controller-manager does the rest.
func TestExternalKubeletLeavesItToTheCCM(t *testing.T) {
	f, c, tl, _ := testFleet(t, true)
	ctx := context.Background()
	if err := f.join(ctx, "sim-node-0002", "procedure"); err != nil {
		t.Fatal(err)
	}
	n, err := c.CoreV1().Nodes().Get(ctx, "sim-node-0002", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Spec.ProviderID != "" || !hasTaint(n, uninitializedTaint) {
		t.Fatalf("external registration %+v", n.Spec)
	}
	if joins := tl.joins(); len(joins) != 1 || joins[0].Attrs["mode"] != "external" || joins[0].Attrs["phase"] != "procedure" {
		t.Fatalf("timeline joins %+v", joins)
	}
}

func TestMostNodesByCoresAndMemory(t *testing.T) {
	for _, tc := range []struct {
		m    Machine
		want int
	}{
		{Machine{Cores: 2, AvailableBytes: 22 << 30}, 500},
		{Machine{Cores: 2, AvailableBytes: 7 << 30}, 128},
		{Machine{Cores: 16, AvailableBytes: 5 << 30}, 0},
	} {
		if got := tc.m.MostNodes(); got != tc.want {
			t.Errorf("%+v holds %d, want %d", tc.m, got, tc.want)
		}
	}
}

func TestMemAvailable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meminfo")
	_ = os.WriteFile(path, []byte("MemTotal:       24000000 kB\nMemAvailable:   22000000 kB\n"), 0o644)
	if got, err := memAvailable(path); err != nil || got != 22000000<<10 {
		t.Fatalf("%d, %v", got, err)
	}
	_ = os.WriteFile(path, []byte("MemTotal: 1 kB\n"), 0o644)
	if _, err := memAvailable(path); err == nil {
		t.Fatal("no MemAvailable line must be an error")
	}
}

func hasTaint(n *corev1.Node, key string) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
}
