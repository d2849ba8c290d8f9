package scale

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/handover-sh/handover/clusters/kindcluster"
)

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
			if kindcluster.NodeReady(n) {
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
