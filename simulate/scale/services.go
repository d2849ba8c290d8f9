package scale

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/handover-sh/handover/clusters/nodeimage"
)

// Namespace holds the fleet's Services and their simulated backends.
const Namespace = "handover-scale"

// NoTrafficLabel marks Services whose endpoints are simulated pods: their
// load balancers are reconciled like any other, but nothing answers behind
// them, so the observers send them no traffic (rehearsal gives the
// observers this label).
const NoTrafficLabel = "handover.sh/no-traffic"

// backendLabel names the Service a simulated pod is the endpoint of.
const backendLabel = "handover.sh/scale-backend"

// createServices makes n LoadBalancer Services, each in front of one pod
// bound to its own simulated node (kwok reports it running with an address
// from the node's pod range): every Service has an endpoint, and each real
// node's proxy programs n endpoints rather than n².
func createServices(ctx context.Context, c kubernetes.Interface, n int) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", Namespace, err)
	}
	for i := range n {
		if _, err := c.CoreV1().Pods(Namespace).Create(ctx, backend(i), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating the simulated backend %s/%s: %w", Namespace, backend(i).Name, err)
		}
		if _, err := c.CoreV1().Services(Namespace).Create(ctx, service(i), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating Service %s/%s: %w", Namespace, service(i).Name, err)
		}
	}
	return nil
}

// backend is the i-th Service's pod, bound to the i-th simulated node.
func backend(i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("backend-%03d", i), Namespace: Namespace, Labels: map[string]string{backendLabel: strconv.Itoa(i)}},
		Spec: corev1.PodSpec{
			NodeName:    nodeName(i + 1),
			Tolerations: []corev1.Toleration{{Key: kwokTaint, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			Containers:  []corev1.Container{{Name: "echo", Image: nodeimage.EchoImage, Ports: []corev1.ContainerPort{{ContainerPort: 8080}}}},
		},
	}
}

func service(i int) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("scale-%03d", i), Namespace: Namespace,
			Labels: map[string]string{NoTrafficLabel: "true"}},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeLoadBalancer,
			Selector: map[string]string{backendLabel: strconv.Itoa(i)},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}
}
