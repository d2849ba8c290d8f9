package observe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/timeline"
)

// A controller whose health check fails has still started and still acts:
// the observer reads /healthz as the procedures' waits do (one parser).
func TestWatchedPicksWatchedControllers(t *testing.T) {
	ob := &Observer{o: Options{Controllers: []string{"service-lb-controller", "node-route-controller"}}}
	body := "[+]leaderElection ok\n[+]service-lb-controller ok\n[-]node-route-controller failed: reason withheld\n[+]deployment-controller ok\nhealthz check passed\n"
	if got := ob.watched(managers.Controllers(body)); strings.Join(got, ",") != "node-route-controller,service-lb-controller" {
		t.Fatalf("watched = %v", got)
	}
}

func TestNodeState(t *testing.T) {
	n := &corev1.Node{Spec: corev1.NodeSpec{ProviderID: "kind://x", Taints: []corev1.Taint{{Key: "b"}, {Key: "a"}}, PodCIDRs: []string{"10.244.1.0/24", "fd00::/64"}}}
	if got := nodeState(n); got != "kind://x|a,b|10.244.1.0/24,fd00::/64||||" {
		t.Fatalf("nodeState = %q", got)
	}
	// What the cloud controllers own on a Node: its addresses and
	// the well-known labels; a change of any is a node.changed event.
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "172.18.0.3"}, {Type: corev1.NodeHostName, Address: "w1"}}
	n.Labels = map[string]string{corev1.LabelTopologyZone: "z1", corev1.LabelTopologyRegion: "r1", corev1.LabelInstanceTypeStable: "sim.worker"}
	a := nodeAttrs(n)
	if a["addresses"] != "Hostname=w1,InternalIP=172.18.0.3" || a["zone"] != "z1" || a["region"] != "r1" || a["instanceType"] != "sim.worker" {
		t.Fatalf("nodeAttrs = %v", a)
	}
	// By type; within a type in the Node's order, the first InternalIP
	// being the node's IP: a reorder is a change.
	n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "172.18.0.3"}, {Type: corev1.NodeHostName, Address: "w1"},
		{Type: corev1.NodeInternalIP, Address: "100.64.0.3"}}
	if a := nodeAttrs(n); a["addresses"] != "Hostname=w1,InternalIP=172.18.0.3,InternalIP=100.64.0.3" {
		t.Fatalf("two InternalIPs: %v", a["addresses"])
	}
	first := nodeState(n)
	n.Status.Addresses[0], n.Status.Addresses[2] = n.Status.Addresses[2], n.Status.Addresses[0]
	if nodeState(n) == first {
		t.Fatal("another first InternalIP is no change of state")
	}
	before := nodeState(n)
	n.Labels[corev1.LabelTopologyZone] = "z2"
	if nodeState(n) == before {
		t.Fatal("a zone change is no change of state")
	}
}

func TestProbeOnce(t *testing.T) {
	ok := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer ok.Close()
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer bad.Close()
	c := probeClient(true)
	if e := probeOnce(context.Background(), target{kind: "api", name: "ok", url: ok.URL, c: c}); e.Attrs["ok"] != "true" || e.Kind != timeline.Probe {
		t.Fatalf("ok probe: %+v", e)
	}
	if e := probeOnce(context.Background(), target{kind: "api", name: "bad", url: bad.URL, c: c}); e.Attrs["ok"] != "false" || e.Attrs["error"] != "HTTP 503" {
		t.Fatalf("bad probe: %+v", e)
	}
	// An API server that is not ready says which checks failed.
	notReady := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("[+]ping ok\n[-]etcd failed: reason withheld\n[+]informer-sync ok\n[-]poststarthook/rbac/bootstrap-roles failed: reason withheld\nreadyz check failed\n"))
	}))
	defer notReady.Close()
	if e := probeOnce(context.Background(), target{kind: "api", name: "starting", url: notReady.URL, c: c}); e.Attrs["error"] != "HTTP 500: failed etcd, poststarthook/rbac/bootstrap-roles" {
		t.Fatalf("not-ready probe: %+v", e)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	if e := probeOnce(context.Background(), target{kind: "lb", name: "gone", url: "http://" + addr, c: c}); e.Attrs["ok"] != "false" || e.Attrs["error"] == "" {
		t.Fatalf("refused probe: %+v", e)
	}
	// A server that dies under a kept connection fails the next probe.
	dying := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	if e := probeOnce(context.Background(), target{kind: "api", name: "dying", url: dying.URL, c: c}); e.Attrs["ok"] != "true" {
		t.Fatalf("before: %+v", e)
	}
	dying.CloseClientConnections()
	dying.Close()
	if e := probeOnce(context.Background(), target{kind: "api", name: "dying", url: dying.URL, c: c}); e.Attrs["ok"] != "false" {
		t.Fatalf("a dead server's kept connection answered: %+v", e)
	}
}

func TestEmitWritesTheTimeline(t *testing.T) {
	var buf bytes.Buffer
	ob := &Observer{o: Options{Timeline: timeline.NewWriter(&buf)}}
	ob.emit(timeline.Event{Source: "lease", Kind: timeline.Lease, Attrs: map[string]string{"lease": "l", "holder": "h"}})
	evs, err := timeline.Read(&buf)
	if err != nil || len(evs) != 1 || evs[0].Time.IsZero() {
		t.Fatalf("%v %+v", err, evs)
	}
}

// lbCloud is a cloud holding the load balancers lbs, as a Cloud answers.
type lbCloud struct{ lbs []CloudLB }

func (c *lbCloud) CallsAfter(context.Context, int) ([]CloudCall, int, error) { return nil, 0, nil }
func (c *lbCloud) LoadBalancers(context.Context) ([]CloudLB, error)          { return c.lbs, nil }
func (c *lbCloud) HasInstance(context.Context, string) (bool, error)         { return false, nil }
func (c *lbCloud) Routes(context.Context) ([]CloudRoute, error)              { return nil, nil }

func TestDiffLBsRecordsBackendChanges(t *testing.T) {
	cloud := &lbCloud{}
	var buf bytes.Buffer
	ob := &Observer{o: Options{Cloud: cloud, Timeline: timeline.NewWriter(&buf)}}
	lb := func(nodes ...string) CloudLB {
		return CloudLB{Name: "a1", IP: "172.18.0.10", Service: "ns/web", Backends: nodes}
	}
	known := map[string]CloudLB{}
	for _, now := range [][]CloudLB{{lb("10.0.0.1")}, {lb("10.0.0.1")}, {lb("10.0.0.1", "10.0.0.2")}, nil} {
		cloud.lbs = now
		ob.diffLBs(context.Background(), known)
	}
	var kinds []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var e timeline.Event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.Kind+" "+e.Attrs["backends"])
	}
	want := []string{"lb.created 10.0.0.1", "lb.changed 10.0.0.1,10.0.0.2", "lb.deleted "}
	if strings.Join(kinds, "|") != strings.Join(want, "|") {
		t.Fatalf("events = %q, want %q", kinds, want)
	}
}

// A load balancer's backends on the timeline stay bounded however many
// nodes it has, and say how many there are.
func TestBackendsAttrIsBounded(t *testing.T) {
	var nodes []string
	for i := range 500 {
		nodes = append(nodes, fmt.Sprintf("10.250.%d.%d", i/256, i%256))
	}
	got := backendsAttr(nodes)
	if strings.Count(got, ",") != maxBackendsListed || !strings.HasSuffix(got, "(500 in all)") {
		t.Fatalf("backends of 500: %q", got)
	}
	if got := backendsAttr(nodes[:2]); got != "10.250.0.0,10.250.0.1" {
		t.Fatalf("backends of 2: %q", got)
	}
}

// WaitSynced returns once the initial Node list is on the timeline: a
// procedure started then changes Nodes the node checks saw before.
func TestWaitSyncedMeansNodesRecorded(t *testing.T) {
	client := fake.NewSimpleClientset(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
	var buf testenv.LockedBuffer
	ob := Start(context.Background(), Options{Client: client, REST: &rest.Config{Host: "https://127.0.0.1:1"}, Timeline: timeline.NewWriter(&buf)})
	defer ob.Stop()
	if err := ob.WaitSynced(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"node":"n1"`) {
		t.Fatalf("synced before the Node n1 was recorded:\n%s", buf.String())
	}
}

// The managers' pods are recorded once listed, an empty set too (the
// evidence that a manager does not exist), then on every change.
func TestManagerPodsRecorded(t *testing.T) {
	kcmPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "kube-controller-manager-cp-1", Namespace: "kube-system", Labels: map[string]string{"component": "kube-controller-manager"}},
		Spec: corev1.PodSpec{NodeName: "cp-1", Containers: []corev1.Container{{Name: "c", Command: []string{"kube-controller-manager"}}}}}
	client := fake.NewSimpleClientset(kcmPod)
	var buf testenv.LockedBuffer
	ob := Start(context.Background(), Options{Client: client, REST: &rest.Config{Host: "https://127.0.0.1:1"}, Timeline: timeline.NewWriter(&buf), ManagerPods: true})
	defer ob.Stop()
	ccmPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "aws-cloud-controller-manager-x", Namespace: "kube-system"},
		Spec: corev1.PodSpec{NodeName: "cp-1", Containers: []corev1.Container{{Name: "c", Command: []string{"/bin/aws-cloud-controller-manager"}}}}}
	want := []string{`"manager":"kube-controller-manager","attrs":{"pods":"cp-1/kube-controller-manager-cp-1"}`, `"manager":"cloud-controller-manager","attrs":{"pods":""}`}
	deadline := time.Now().Add(10 * time.Second)
	for !containsAll(buf.String(), want) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !containsAll(buf.String(), want) {
		t.Fatalf("the first list's sets not recorded:\n%s", buf.String())
	}
	if _, err := client.CoreV1().Pods("kube-system").Create(context.Background(), ccmPod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	want = append(want, `"manager":"cloud-controller-manager","attrs":{"pods":"cp-1/aws-cloud-controller-manager-x"}`)
	for !containsAll(buf.String(), want) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !containsAll(buf.String(), want) {
		t.Fatalf("the new CCM pod not recorded:\n%s", buf.String())
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// A load balancer named by DNS alone is probed at the address it resolves
// to; one that does not resolve is probed by name (and fails as a client
// would); an IP is probed as it is.
func TestLBHost(t *testing.T) {
	ob := &Observer{o: Options{ResolveLB: func(_ context.Context, host string) (string, error) {
		if host == "a-0123456789.r.elb.amazonaws.com" {
			return "172.18.0.9", nil
		}
		return "", fmt.Errorf("no such host %s", host)
	}}}
	for _, c := range []struct {
		in   corev1.LoadBalancerIngress
		want string
	}{
		{corev1.LoadBalancerIngress{IP: "172.18.0.7"}, "172.18.0.7"},
		{corev1.LoadBalancerIngress{IP: "172.18.0.7", Hostname: "x.example"}, "172.18.0.7"},
		{corev1.LoadBalancerIngress{Hostname: "a-0123456789.r.elb.amazonaws.com"}, "172.18.0.9"},
		{corev1.LoadBalancerIngress{Hostname: "gone-0123456789.r.elb.amazonaws.com"}, "gone-0123456789.r.elb.amazonaws.com"},
	} {
		if got := ob.lbHost(context.Background(), c.in); got != c.want {
			t.Errorf("%+v: %q, want %q", c.in, got, c.want)
		}
	}
}

// A cloud's health check rides on the load balancer's events, and a new
// one is a change.
func TestDiffLBsRecordsTheHealthCheckAndDroppedTraffic(t *testing.T) {
	cloud := &lbCloud{}
	var buf bytes.Buffer
	ob := &Observer{o: Options{Cloud: cloud, Timeline: timeline.NewWriter(&buf)}}
	lb := func(target string) CloudLB {
		return CloudLB{Name: "a1", IP: "172.18.0.10", Service: "ns/web", Backends: []string{"10.0.0.1"},
			Health: &LBHealth{Target: target, Interval: 10 * time.Second, Timeout: 5 * time.Second, Healthy: 2, Unhealthy: 6}}
	}
	dropped := lb("TCP:31000")
	dropped.Dropped = []string{"10.0.0.1:31000"}
	draining := lb("TCP:31000")
	draining.Draining = "30s"
	known := map[string]CloudLB{}
	for _, now := range [][]CloudLB{{lb("TCP:80")}, {lb("TCP:80")}, {lb("TCP:31000")}, {dropped}, {lb("TCP:31000")}, {draining}} {
		cloud.lbs = now
		ob.diffLBs(context.Background(), known)
	}
	evs, err := timeline.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range evs {
		got = append(got, strings.TrimSpace(e.Kind+" "+e.Attrs[timeline.HealthCheck]+" "+e.Attrs[timeline.HealthInterval]+" "+e.Attrs[timeline.UnhealthyThreshold]+" "+e.Attrs[timeline.LBDropped]+" "+e.Attrs[timeline.LBDraining]))
	}
	if want := []string{"lb.created TCP:80 10s 6", "lb.changed TCP:31000 10s 6", "lb.changed TCP:31000 10s 6 10.0.0.1:31000", "lb.changed TCP:31000 10s 6", "lb.changed TCP:31000 10s 6  30s"}; !slices.Equal(got, want) {
		t.Fatalf("events = %q, want %q", got, want)
	}
}
