package scale

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// Node agents (tolerating every taint) stay off simulated nodes, keeping
// their own affinity; one rendered again without it gets it back; one that
// has it, or does not tolerate kwok's taint, is not written.
func TestDaemonSetsKeptOffSimulatedNodes(t *testing.T) {
	everywhere := []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	ds := func(name string, tol []corev1.Toleration, terms ...corev1.NodeSelectorTerm) *appsv1.DaemonSet {
		d := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system"}}
		d.Spec.Template.Spec.Tolerations = tol
		if len(terms) > 0 {
			d.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
		}
		return d
	}
	linux := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/os", Operator: corev1.NodeSelectorOpIn, Values: []string{"linux"}}}}
	controlPlanes := []corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists}}
	c := fake.NewSimpleClientset(ds("kube-proxy", everywhere), ds("handover-cni", everywhere, linux), ds("cloud-controller-manager", controlPlanes))
	ctx := context.Background()
	get := func(name string) *appsv1.DaemonSet {
		got, _ := c.AppsV1().DaemonSets("kube-system").Get(ctx, name, metav1.GetOptions{})
		return got
	}
	if err := keepDaemonSetsOff(ctx, c); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kube-proxy", "handover-cni"} {
		if !keptOff(get(name).Spec.Template.Spec.Affinity) {
			t.Fatalf("%s: affinity %+v", name, get(name).Spec.Template.Spec.Affinity)
		}
	}
	if terms := get("handover-cni").Spec.Template.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms; len(terms) != 1 || len(terms[0].MatchExpressions) != 2 {
		t.Errorf("handover-cni's own term lost: %+v", terms)
	}
	if get("cloud-controller-manager").Spec.Template.Spec.Affinity != nil {
		t.Error("the cloud-controller-manager's DaemonSet, on control planes only, was changed")
	}
	writes := len(c.Actions())
	if err := keepDaemonSetsOff(ctx, c); err != nil {
		t.Fatal(err)
	}
	if written := len(c.Actions()) - writes - 1; written != 0 {
		t.Errorf("%d DaemonSets written again", written)
	}
	if _, err := c.AppsV1().DaemonSets("kube-system").Update(ctx, ds("kube-proxy", everywhere), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	_ = keepDaemonSetsOff(ctx, c)
	if !keptOff(get("kube-proxy").Spec.Template.Spec.Affinity) {
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
