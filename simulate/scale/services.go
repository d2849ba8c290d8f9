package scale

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/verify/observe"
)

// Namespace holds the fleet's Services and their simulated backends.
const Namespace = "handover-scale"

// NoTrafficLabel marks Services whose endpoints are simulated pods: their
// load balancers are reconciled like any other, but nothing answers behind
// them, so the observers send them no traffic.
const NoTrafficLabel = observe.NoTrafficLabel

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

// keepDaemonSetsOff gives every kube-system DaemonSet an affinity away from
// simulated nodes, as a real cluster's node agents would not run on a
// machine with no container runtime: kwok would report their pods running,
// hundreds of pods that only load the scheduler. A procedure that renders a
// DaemonSet again (kubeadm's kube-proxy at an upgrade) loses it, so the
// fleet calls this again as it goes; DaemonSets that have it are left be.
func keepDaemonSetsOff(ctx context.Context, c kubernetes.Interface) error {
	dss, err := c.AppsV1().DaemonSets("kube-system").List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return fmt.Errorf("listing kube-system DaemonSets: %w", err)
	}
	patch := []byte(`{"spec":{"template":{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"` +
		SimulatedLabel + `","operator":"DoesNotExist"}]}]}}}}}}}`)
	for _, ds := range dss.Items {
		if keptOff(ds.Spec.Template.Spec.Affinity) {
			continue
		}
		if _, err := c.AppsV1().DaemonSets("kube-system").Patch(ctx, ds.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("keeping DaemonSet kube-system/%s off simulated nodes: %w", ds.Name, err)
		}
	}
	return nil
}

// keptOff: every node selector term of a required node affinity excludes
// simulated nodes.
func keptOff(a *corev1.Affinity) bool {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for _, t := range terms {
		if !slices.ContainsFunc(t.MatchExpressions, func(r corev1.NodeSelectorRequirement) bool {
			return r.Key == SimulatedLabel && r.Operator == corev1.NodeSelectorOpDoesNotExist
		}) {
			return false
		}
	}
	return len(terms) > 0
}

// readyTimeout is how long the fleet may take to come up: the cloud
// controllers work through every node and load balancer at the throttled
// rate.
func readyTimeout(p Profile) time.Duration {
	return 3*time.Minute + time.Duration(p.Nodes+p.Services)*time.Second
}

// waitReady waits until every simulated node is Ready, has its ProviderID
// and no uninitialised taint, and every Service has its load balancer.
func waitReady(ctx context.Context, c kubernetes.Interface, p Profile, logf func(string, ...any)) error {
	timeout := readyTimeout(p)
	var state string
	last := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 5*time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: SimulatedLabel + "=true", ResourceVersion: "0"})
		if err != nil {
			return false, nil
		}
		svcs, err := c.CoreV1().Services(Namespace).List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			return false, nil
		}
		ready, initialised, served := 0, 0, 0
		for i := range nodes.Items {
			n := &nodes.Items[i]
			if isReady(n) {
				ready++
			}
			if initialisedNode(n) {
				initialised++
			}
		}
		for _, s := range svcs.Items {
			if len(s.Status.LoadBalancer.Ingress) > 0 {
				served++
			}
		}
		state = fmt.Sprintf("%d of %d simulated nodes Ready, %d initialised; %d of %d Services with a load balancer",
			ready, p.Nodes, initialised, served, p.Services)
		if time.Since(last) > 30*time.Second {
			logf("%s", state)
			last = time.Now()
		}
		return ready >= p.Nodes && initialised >= p.Nodes && served >= p.Services, nil
	})
	if err != nil {
		return fmt.Errorf("the simulated fleet did not come up in %s (%s): %w", timeout, state, err)
	}
	logf("%s", state)
	return nil
}

func isReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// initialisedNode: a ProviderID and no uninitialised taint.
func initialisedNode(n *corev1.Node) bool {
	if n.Spec.ProviderID == "" {
		return false
	}
	for _, t := range n.Spec.Taints {
		if t.Key == uninitializedTaint {
			return false
		}
	}
	return true
}
