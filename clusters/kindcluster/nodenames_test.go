package kindcluster

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/clusters/engine"
)

// Containers find their Nodes by address, whatever either is named; a
// stopped container (whose address Docker may hand on) matches nothing.
func TestMatchNodes(t *testing.T) {
	node := func(name, ip string) corev1.Node {
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{
			{Type: corev1.NodeHostName, Address: name}, {Type: corev1.NodeInternalIP, Address: ip}}}}
	}
	cs := []engine.Container{
		{Name: "c-control-plane", IPv4: "172.18.0.2", State: "running"},
		{Name: "c-worker", IPv4: "172.18.0.3", State: "running"},
		{Name: "c-worker2", IPv4: "172.18.0.4", State: "exited"},
		{Name: "c-worker3", IPv4: "172.18.0.9", State: "running"},
	}
	ns := []corev1.Node{node("c-control-plane", "172.18.0.2"), node("ip-172-18-0-3.r.compute.internal", "172.18.0.3"), node("old", "172.18.0.4")}
	got := MatchNodes(cs, ns)
	want := map[string]string{"c-control-plane": "c-control-plane", "c-worker": "ip-172-18-0-3.r.compute.internal"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	var m nodeNames
	m.remember(got)
	if n, ok := m.node("c-worker"); !ok || n != "ip-172-18-0-3.r.compute.internal" {
		t.Errorf("remembered %q", n)
	}
	if c, ok := m.container("ip-172-18-0-3.r.compute.internal"); !ok || c != "c-worker" {
		t.Errorf("remembered %q", c)
	}
}
