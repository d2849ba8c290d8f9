package load

import (
	"context"
	"fmt"
	"slices"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/waits"
)

// Namespace holds everything the load makes.
const Namespace = "handover-load"

// backendLabel marks the workers the echo backends run on: the cluster's
// own workers, never one the load joins and later terminates.
const backendLabel = "handover.sh/load-backend"

var echoLabels = map[string]string{"app": "handover-echo"}

// prepareBackends makes the namespace and an echo Deployment, one replica
// per backend worker, and waits until it is available.
func prepareBackends(ctx context.Context, c kubernetes.Interface, workers []string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", Namespace, err)
	}
	if len(workers) == 0 {
		return fmt.Errorf("the load needs at least one worker for its backends")
	}
	patch := []byte(`{"metadata":{"labels":{"` + backendLabel + `":"true"}}}`)
	for _, w := range workers {
		if _, err := c.CoreV1().Nodes().Patch(ctx, w, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("labelling backend worker %s: %w", w, err)
		}
	}
	replicas := int32(len(workers))
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "echo", Namespace: Namespace},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: echoLabels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: echoLabels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{backendLabel: "true"},
					Containers: []corev1.Container{{
						Name: "echo", Image: nodeimage.EchoImage, ImagePullPolicy: corev1.PullIfNotPresent, Args: []string{"serve"},
						Ports:          []corev1.ContainerPort{{ContainerPort: 8080}},
						ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8080)}}, PeriodSeconds: 2},
					}},
				},
			},
		},
	}
	if _, err := c.AppsV1().Deployments(Namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the echo backends: %w", err)
	}
	err := wait.PollUntilContextTimeout(ctx, time.Second, waits.Of(ctx, WaitBackends), true, func(ctx context.Context) (bool, error) {
		got, err := c.AppsV1().Deployments(Namespace).Get(ctx, "echo", metav1.GetOptions{})
		return err == nil && got.Status.AvailableReplicas == replicas, nil
	})
	if err != nil {
		return fmt.Errorf("the echo backends did not become available in 3m (kubectl -n %s describe deployment echo): %w", Namespace, err)
	}
	return nil
}

// lbService is a LoadBalancer Service in front of the echo backends.
func lbService(name string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: Namespace, Labels: map[string]string{"handover.sh/load": "true"}},
		Spec: corev1.ServiceSpec{
			Type:     corev1.ServiceTypeLoadBalancer,
			Selector: echoLabels,
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}
}

// waitIngress waits until the cloud gave each Service an address.
func waitIngress(ctx context.Context, c kubernetes.Interface, names []string, timeout time.Duration) error {
	for _, n := range names {
		err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
			s, err := c.CoreV1().Services(Namespace).Get(ctx, n, metav1.GetOptions{})
			return err == nil && len(s.Status.LoadBalancer.Ingress) > 0, nil
		})
		if ctx.Err() != nil {
			return fmt.Errorf("waiting for the Service %s/%s's load balancer: %w", Namespace, n, ctx.Err()) // stopped, not slow
		}
		if err != nil {
			return fmt.Errorf("the Service %s/%s got no load balancer in %s (is a manager running service-lb-controller?)%s: %w", Namespace, n, timeout, lastWarning(ctx, c, n), err)
		}
	}
	return nil
}

// AwaitGone keeps the observation going until the Nodes of the instances
// the load terminated are deleted, or timeout: the stale-node check
// judges how long each outlived its instance, and needs to see it go.
// It returns the names still there.
func AwaitGone(ctx context.Context, c kubernetes.Interface, names []string, timeout time.Duration) []string {
	left := slices.Clone(names)
	_ = wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		left = slices.DeleteFunc(left, func(n string) bool {
			_, err := c.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		})
		return len(left) == 0, nil
	})
	return left
}

// Settle waits until no load Service is still being deleted or waiting
// for its load balancer's address, so the observers' end snapshot
// compares Services and load balancers at rest, and lb-provision has seen
// a waiting Service for as long as it allows one to wait.
func Settle(ctx context.Context, c kubernetes.Interface, timeout time.Duration) error {
	var deleting, waiting []string
	err := wait.PollUntilContextTimeout(ctx, time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		svcs, err := c.CoreV1().Services(Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, nil
		}
		deleting, waiting = deleting[:0], waiting[:0]
		for _, s := range svcs.Items {
			switch {
			case s.DeletionTimestamp != nil:
				deleting = append(deleting, s.Name)
			case s.Spec.Type == corev1.ServiceTypeLoadBalancer && len(s.Status.LoadBalancer.Ingress) == 0:
				waiting = append(waiting, s.Name)
			}
		}
		return len(deleting)+len(waiting) == 0, nil
	})
	if ctx.Err() != nil {
		return fmt.Errorf("waiting for the load's Services to settle: %w", ctx.Err()) // stopped, not slow
	}
	if err != nil {
		return fmt.Errorf("after %s the Services %v are still being deleted and %v still have no address (is a manager running service-lb-controller?): %w", timeout, deleting, waiting, err)
	}
	return nil
}
