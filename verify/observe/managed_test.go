package observe

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/timeline"
)

var t0 = time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)

func entry(manager, sub string, at time.Time) metav1.ManagedFieldsEntry {
	mt := metav1.NewTime(at)
	return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, Subresource: sub, Time: &mt}
}

func lbService(ip string, mf ...metav1.ManagedFieldsEntry) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", ManagedFields: mf},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}}
	if ip != "" {
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: ip}}
	}
	return s
}

func TestManagedWritesAttributeTheWriter(t *testing.T) {
	kcm := entry("kube-controller-manager", "status", t0)
	old := lbService("", kcm)
	cur := lbService("10.0.0.9", kcm, entry("cloud-controller-manager", "status", t0.Add(3*time.Second)))
	evs := managedWrites("services", old, cur)
	if len(evs) != 1 || evs[0].Manager != "cloud-controller-manager" || evs[0].Controller != "service-lb-controller" ||
		evs[0].Kind != timeline.ManagedWrite || !evs[0].Time.Equal(t0.Add(3*time.Second)) || evs[0].Attrs["name"] != "ns/web" ||
		evs[0].Attrs["resource"] != "services/status" {
		t.Fatalf("events %+v", evs)
	}
	// Nothing the controller owns changed: no write of its.
	if evs := managedWrites("services", cur, lbService("10.0.0.9", kcm, entry("cloud-controller-manager", "status", t0.Add(9*time.Second)))); len(evs) != 0 {
		t.Fatalf("unchanged addresses attributed: %+v", evs)
	}
	// Both managers' entries moved between the two versions seen: unknown.
	both := lbService("10.0.0.7", entry("kube-controller-manager", "status", t0.Add(5*time.Second)), entry("cloud-controller-manager", "status", t0.Add(5*time.Second)))
	if evs := managedWrites("services", cur, both); len(evs) != 0 {
		t.Fatalf("an ambiguous write attributed: %+v", evs)
	}
	// Someone else wrote it: no manager's write.
	other := lbService("10.0.0.5", kcm, entry("cloud-controller-manager", "status", t0.Add(3*time.Second)), entry("metallb-controller", "status", t0.Add(7*time.Second)))
	if evs := managedWrites("services", cur, other); len(evs) != 0 {
		t.Fatalf("another manager's write attributed: %+v", evs)
	}
	// A cloud's own cloud-controller-manager is the cloud-controller-manager.
	aws := lbService("10.0.0.9", kcm, entry("aws-cloud-controller-manager", "status", t0.Add(3*time.Second)))
	if evs := managedWrites("services", old, aws); len(evs) != 1 || evs[0].Manager != "cloud-controller-manager" {
		t.Fatalf("aws-cloud-controller-manager's write: %+v", evs)
	}
	// The first sight of an object says nothing of who changed it.
	if evs := managedWrites("services", nil, cur); len(evs) != 0 {
		t.Fatalf("first sight attributed: %+v", evs)
	}
}

func TestManagedWritesOnNodes(t *testing.T) {
	node := func(pid string, taint bool, mf ...metav1.ManagedFieldsEntry) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w1", ManagedFields: mf}, Spec: corev1.NodeSpec{ProviderID: pid}}
		if taint {
			n.Spec.Taints = []corev1.Taint{{Key: uninitializedTaint}}
		}
		return n
	}
	old := node("", true, entry("kubelet", "", t0))
	// The cloud-node controller initialises it.
	cur := node("sim://w1", false, entry("kubelet", "", t0), entry("cloud-controller-manager", "", t0.Add(2*time.Second)))
	evs := managedWrites("nodes", old, cur)
	if len(evs) != 1 || evs[0].Controller != "cloud-node-controller" || evs[0].Manager != "cloud-controller-manager" {
		t.Fatalf("events %+v", evs)
	}
	// The kube-controller-manager's entry moving with a ProviderID is not
	// the cloud-node controller's (it runs only in the CCM).
	kcm := node("sim://w1", false, entry("kubelet", "", t0), entry("kube-controller-manager", "", t0.Add(2*time.Second)))
	if evs := managedWrites("nodes", old, kcm); len(evs) != 0 {
		t.Fatalf("attributed to the KCM: %+v", evs)
	}
	// Pod CIDRs: node IPAM, whichever manager runs it.
	withCIDR := node("sim://w1", false, entry("kubelet", "", t0), entry("cloud-controller-manager", "", t0.Add(2*time.Second)), entry("kube-controller-manager", "", t0.Add(4*time.Second)))
	withCIDR.Spec.PodCIDRs = []string{"10.244.1.0/24"}
	if evs := managedWrites("nodes", cur, withCIDR); len(evs) != 1 || evs[0].Controller != "node-ipam-controller" || evs[0].Manager != "kube-controller-manager" {
		t.Fatalf("events %+v", evs)
	}
}

func TestReportedEvent(t *testing.T) {
	e := &corev1.Event{ObjectMeta: metav1.ObjectMeta{ManagedFields: []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "", t0)}},
		InvolvedObject: corev1.ObjectReference{Kind: "Service", Namespace: "ns", Name: "web"}, Reason: "EnsuringLoadBalancer",
		Message: "Ensuring load balancer", Source: corev1.EventSource{Component: "service-controller"}}
	ev, ok := reportedEvent(nil, e)
	if !ok || ev.Manager != "kube-controller-manager" || ev.Controller != "service-lb-controller" || ev.Attrs["reason"] != "EnsuringLoadBalancer" ||
		ev.Attrs["message"] != "Ensuring load balancer" || ev.Source != "events" {
		t.Fatalf("event %+v %v", ev, ok)
	}
	// A provider's error may quote a whole API response: its message is
	// cut to 600 characters.
	long := e.DeepCopy()
	long.Message = "Error syncing load balancer: " + strings.Repeat("x", 2000)
	if ev, _ := reportedEvent(nil, long); utf8.RuneCountInString(ev.Attrs["message"]) != maxMessage || !strings.HasSuffix(ev.Attrs["message"], "…") {
		t.Fatalf("a long message kept as %d characters", utf8.RuneCountInString(ev.Attrs["message"]))
	}
	// Counted again by the same manager: another write, at its new time.
	again := e.DeepCopy()
	again.ManagedFields = []metav1.ManagedFieldsEntry{entry("kube-controller-manager", "", t0.Add(time.Minute))}
	if ev, ok := reportedEvent(e, again); !ok || !ev.Time.Equal(t0.Add(time.Minute)) {
		t.Fatalf("recount %+v %v", ev, ok)
	}
	// Not a cloud controller's, or written by something else.
	other := e.DeepCopy()
	other.Source.Component = "deployment-controller"
	if _, ok := reportedEvent(nil, other); ok {
		t.Fatal("a non-cloud controller's event attributed")
	}
	kubectl := e.DeepCopy()
	kubectl.ManagedFields = []metav1.ManagedFieldsEntry{entry("kubectl", "", t0)}
	if _, ok := reportedEvent(nil, kubectl); ok {
		t.Fatal("an event written by kubectl attributed to a manager")
	}
}

func TestParseManagerURL(t *testing.T) {
	for in, want := range map[string]Endpoint{
		"https://10.0.0.1:10257":                    {Manager: "kube-controller-manager", Instance: "10.0.0.1:10257"},
		"https://10.0.0.1:10258/":                   {Manager: "cloud-controller-manager", Instance: "10.0.0.1:10258"},
		"ccm=https://127.0.0.1:40001":               {Manager: "cloud-controller-manager", Instance: "127.0.0.1:40001"},
		"kcm@cp-1=https://127.0.0.1:40002":          {Manager: "kube-controller-manager", Instance: "cp-1"},
		"cloud-controller-manager@cp-2=https://h:1": {Manager: "cloud-controller-manager", Instance: "cp-2"},
	} {
		got, err := ParseManagerURL(in)
		if err != nil || got.Endpoint != want {
			t.Errorf("ParseManagerURL(%q) = %+v, %v; want %+v", in, got.Endpoint, err, want)
		}
	}
	for _, bad := range []string{"10.0.0.1:10257", "http://h:10257", "https://h:443", "sched=https://h:10259", "https://"} {
		if _, err := ParseManagerURL(bad); err == nil {
			t.Errorf("ParseManagerURL(%q) accepted", bad)
		}
	}
}
