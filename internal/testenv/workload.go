package testenv

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/handover-sh/handover/clusters/nodeimage"
)

// EchoPod is a pod running handover-echo on a given node, labelled app=echo.
func EchoPod(name, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "echo"}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{
			Name: "echo", Image: nodeimage.EchoImage, ImagePullPolicy: corev1.PullIfNotPresent, Args: []string{"serve"},
		}}},
	}
}

// UninitializedTaint is the taint a node carries until a cloud's manager
// has initialised it.
const UninitializedTaint = "node.cloudprovider.kubernetes.io/uninitialized"

// LoadBalancerService is a LoadBalancer Service of the echo pods, port 80
// to their 8080.
func LoadBalancerService(name string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeLoadBalancer, Selector: map[string]string{"app": "echo"},
		Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}}}
}

// CopyFile copies src to dst (an artifact), making dst's directory.
func CopyFile(src, dst string) error {
	raw, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, raw, 0o644)
}

// HTTPGet fetches url with a short timeout and fails on non-200 answers.
func HTTPGet(url string) (string, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return string(body), fmt.Errorf("%s: %s", url, resp.Status)
	}
	return string(body), err
}
