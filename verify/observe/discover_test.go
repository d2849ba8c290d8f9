package observe

import (
	"context"
	"net"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func discoverFixture() *fake.Clientset {
	node := func(name, ip string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: name}, {Type: corev1.NodeInternalIP, Address: ip}}}}
	}
	pod := func(name, node string, labels map[string]string, hostNetwork bool, podIP string, command ...string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system", Labels: labels},
			Spec:   corev1.PodSpec{NodeName: node, HostNetwork: hostNetwork, Containers: []corev1.Container{{Name: "c", Command: command}}},
			Status: corev1.PodStatus{PodIP: podIP}}
	}
	return fake.NewSimpleClientset(node("cp-1", "10.0.0.1"), node("cp-2", "10.0.0.2"),
		// kubeadm's static pod, bound to the loopback.
		pod("kube-controller-manager-cp-1", "cp-1", map[string]string{"component": "kube-controller-manager", "tier": "control-plane"}, true, "10.0.0.1",
			"kube-controller-manager", "--bind-address=127.0.0.1", "--leader-elect=true"),
		// The AWS chart's DaemonSet: found by its binary, another port.
		pod("aws-cloud-controller-manager-x7k2p", "cp-2", map[string]string{"k8s-app": "aws-cloud-controller-manager"}, true, "10.0.0.2",
			"/bin/aws-cloud-controller-manager", "--secure-port", "10300", "--v=2"),
		// A Deployment off the host network: its pod's address.
		pod("cloud-controller-manager-5d9f-abcde", "cp-1", nil, false, "10.244.1.5", "/usr/local/bin/cloud-controller-manager", "--cloud-provider=azure"),
		pod("coredns-1", "cp-1", map[string]string{"k8s-app": "kube-dns"}, false, "10.244.1.9", "/coredns"),
		// A chart passing only args to its image's entrypoint: its
		// container's name says what it runs.
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "aws-cloud-controller-manager-q9w8e", Namespace: "kube-system"},
			Spec: corev1.PodSpec{NodeName: "cp-1", HostNetwork: true, Containers: []corev1.Container{{Name: "aws-cloud-controller-manager", Args: []string{"--v=2", "--cloud-provider=aws"}}}}},
		// A manager's name in an argument is not the manager.
		pod("log-shipper-1", "cp-1", nil, true, "10.0.0.1", "/bin/shipper", "--follow=/var/log/pods/kube-controller-manager"),
		pod("kube-apiserver-cp-1", "cp-1", map[string]string{"component": "kube-apiserver"}, true, "10.0.0.1", "kube-apiserver", "--bind-address=127.0.0.1"))
}

func TestDiscoverFindsTheManagersAndHowToReachThem(t *testing.T) {
	found, err := Discover(context.Background(), discoverFixture(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Found{}
	for _, f := range found {
		got[f.Pod] = f
	}
	if len(found) != 4 {
		t.Fatalf("found %d managers, want 4: %v", len(found), found)
	}
	if args := got["kube-system/aws-cloud-controller-manager-q9w8e"]; args.Manager != "cloud-controller-manager" || args.URL == nil || args.URL.String() != "https://10.0.0.1:10258" {
		t.Errorf("the chart pod with args only: %+v", args)
	}
	kcm := got["kube-system/kube-controller-manager-cp-1"]
	if kcm.Manager != "kube-controller-manager" || kcm.Instance != "cp-1" || kcm.URL != nil {
		t.Fatalf("the loopback-bound static pod: %+v", kcm)
	}
	for _, want := range []string{"127.0.0.1:10257 on node cp-1 only", "Run handover observe on cp-1", "ssh -N -L 30257:127.0.0.1:10257 cp-1", "--manager kcm@cp-1=https://127.0.0.1:30257"} {
		if !strings.Contains(kcm.Why, want) {
			t.Errorf("the loopback-bound manager's reason lacks %q: %s", want, kcm.Why)
		}
	}
	if aws := got["kube-system/aws-cloud-controller-manager-x7k2p"]; aws.Manager != "cloud-controller-manager" || aws.URL == nil || aws.URL.String() != "https://10.0.0.2:10300" {
		t.Errorf("the chart's DaemonSet pod: %+v", aws)
	}
	if dep := got["kube-system/cloud-controller-manager-5d9f-abcde"]; dep.URL == nil || dep.URL.String() != "https://10.244.1.5:10258" {
		t.Errorf("the Deployment's pod: %+v", dep)
	}
	if r := Reachable(found); len(r) != 3 {
		t.Errorf("reachable %v, want the three not bound to the loopback", r)
	}
}

// On the node itself the loopback-bound manager is sampled there.
func TestDiscoverOnTheManagersNode(t *testing.T) {
	found, err := Discover(context.Background(), discoverFixture(), []net.IP{net.ParseIP("10.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		if f.Manager == "kube-controller-manager" && (f.URL == nil || f.URL.String() != "https://127.0.0.1:10257") {
			t.Fatalf("on cp-1 its kube-controller-manager: %+v", f)
		}
	}
}
