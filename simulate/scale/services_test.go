package scale

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// DaemonSets stay off simulated nodes, and one rendered again without the
// affinity gets it back; one that has it is not written again.
func TestDaemonSetsKeptOffSimulatedNodes(t *testing.T) {
	ds := func(name string) *appsv1.DaemonSet {
		return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"}}
	}
	c := fake.NewSimpleClientset(ds("kube-proxy"), ds("handover-cni"))
	ctx := context.Background()
	if err := keepDaemonSetsOff(ctx, c); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kube-proxy", "handover-cni"} {
		got, _ := c.AppsV1().DaemonSets("kube-system").Get(ctx, name, metav1.GetOptions{})
		if !keptOff(got.Spec.Template.Spec.Affinity) {
			t.Fatalf("%s: affinity %+v", name, got.Spec.Template.Spec.Affinity)
		}
	}
	writes := len(c.Actions())
	if err := keepDaemonSetsOff(ctx, c); err != nil {
		t.Fatal(err)
	}
	if patched := len(c.Actions()) - writes - 1; patched != 0 {
		t.Errorf("%d DaemonSets patched again", patched)
	}
	if _, err := c.AppsV1().DaemonSets("kube-system").Update(ctx, ds("kube-proxy"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_ = keepDaemonSetsOff(ctx, c)
	if got, _ := c.AppsV1().DaemonSets("kube-system").Get(ctx, "kube-proxy", metav1.GetOptions{}); !keptOff(got.Spec.Template.Spec.Affinity) {
		t.Fatal("kube-proxy rendered again kept no affinity")
	}
}

// Each Service has one endpoint pod, bound to a simulated node of its own.
func TestEachServiceHasItsOwnBackend(t *testing.T) {
	c := fake.NewSimpleClientset()
	ctx := context.Background()
	if err := createServices(ctx, c, 3); err != nil {
		t.Fatal(err)
	}
	pods, _ := c.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{})
	svcs, _ := c.CoreV1().Services(Namespace).List(ctx, metav1.ListOptions{})
	if len(pods.Items) != 3 || len(svcs.Items) != 3 {
		t.Fatalf("%d pods, %d Services", len(pods.Items), len(svcs.Items))
	}
	nodes := map[string]bool{}
	for _, p := range pods.Items {
		nodes[p.Spec.NodeName] = true
	}
	if !nodes["sim-node-0001"] || !nodes["sim-node-0003"] || len(nodes) != 3 {
		t.Errorf("backends on %v", nodes)
	}
	for _, s := range svcs.Items {
		if s.Spec.Type != corev1.ServiceTypeLoadBalancer || s.Labels[NoTrafficLabel] != "true" || len(s.Spec.Selector) != 1 {
			t.Errorf("Service %s: %+v", s.Name, s.Spec)
		}
	}
}
