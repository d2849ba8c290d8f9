package kindcluster_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/internal/testenv"
)

const echoNodePort = 30080

// startEchoPods runs an echo pod on each of two workers (plus a NodePort
// Service) and returns the pods once Running.
func startEchoPods(t *testing.T, client kubernetes.Interface) []*corev1.Pod {
	ctx := context.Background()
	// The default ServiceAccount must exist before pods are admitted.
	if err := wait.PollUntilContextTimeout(ctx, time.Second, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := client.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	}); err != nil {
		t.Fatal("default ServiceAccount never appeared")
	}
	var pods []*corev1.Pod
	for i, node := range []string{"handover-it-worker", "handover-it-worker2"} {
		p, err := client.CoreV1().Pods("default").Get(ctx, "echo-"+string(rune('a'+i)), metav1.GetOptions{})
		if err != nil {
			if p, err = client.CoreV1().Pods("default").Create(ctx, testenv.EchoPod("echo-"+string(rune('a'+i)), node), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		pods = append(pods, p)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "echo"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeNodePort, Selector: map[string]string{"app": "echo"},
		Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080), NodePort: echoNodePort}}}}
	if _, err := client.CoreV1().Services("default").Get(ctx, svc.Name, metav1.GetOptions{}); err != nil {
		if _, err := client.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range pods {
		err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
			got, err := client.CoreV1().Pods("default").Get(ctx, p.Name, metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			pods[i] = got
			return got.Status.Phase == corev1.PodRunning && got.Status.PodIP != "", nil
		})
		if err != nil {
			t.Fatalf("pod %s not running: phase %s", p.Name, pods[i].Status.Phase)
		}
	}
	return pods
}

func testPodNetwork(t *testing.T, c *kindcluster.Cluster, client kubernetes.Interface) {
	pods := startEchoPods(t, client)
	if pods[0].Spec.NodeName == pods[1].Spec.NodeName {
		t.Fatal("echo pods share a node")
	}
	cps, err := c.ControlPlanes()
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + pods[1].Status.PodIP + ":8080/"
	var out strings.Builder
	err = cps[0].Command("kubectl", "exec", pods[0].Name, "--", "handover-echo", "get", url).SetStdout(&out).SetStderr(&out).Run()
	if err != nil {
		t.Fatalf("%s on %s could not reach %s on %s: %v\n%s", pods[0].Name, pods[0].Spec.NodeName, url, pods[1].Spec.NodeName, err, out.String())
	}
	// The answer names the pod that served it and the client address it saw:
	// a pod address, not a masqueraded node address.
	if !strings.Contains(out.String(), pods[1].Name) || !strings.Contains(out.String(), "from "+pods[0].Status.PodIP+":") {
		t.Fatalf("unexpected answer %q", out.String())
	}
}

func testNodePort(t *testing.T, client kubernetes.Interface) {
	startEchoPods(t, client)
	nodes, err := client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		ip := ""
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP {
				ip = a.Address
			}
		}
		url := "http://" + ip + ":30080/"
		var body string
		err := wait.PollUntilContextTimeout(context.Background(), 500*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
			body, err = testenv.HTTPGet(url)
			return err == nil, nil
		})
		if err != nil {
			t.Errorf("NodePort on %s (%s): %v", n.Name, url, err)
			continue
		}
		if !strings.HasPrefix(body, "echo-") {
			t.Errorf("NodePort on %s answered %q", n.Name, body)
		}
	}
}
