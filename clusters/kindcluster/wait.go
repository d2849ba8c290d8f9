package kindcluster

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// WaitHealthy waits until every node is Ready and every kube-system pod is
// Running with all containers ready; on timeout it says what is not.
func (c *Cluster) WaitHealthy(ctx context.Context, limit time.Duration) error {
	client, err := c.ClientContext(ctx)
	if err != nil {
		return err
	}
	c.Logger.V(0).Info(" • Waiting for nodes and system pods ...")
	start := time.Now()
	var problems []string
	err = wait.PollUntilContextTimeout(ctx, time.Second, limit, true, func(ctx context.Context) (bool, error) {
		problems = healthProblems(ctx, client)
		return len(problems) == 0, nil
	})
	if err != nil {
		return fmt.Errorf("cluster not healthy after %s: %s", limit, strings.Join(problems, "; "))
	}
	c.Logger.V(0).Infof(" ✓ Nodes Ready and system pods Running (%s)", time.Since(start).Round(time.Second))
	return nil
}

func healthProblems(ctx context.Context, client kubernetes.Interface) []string {
	var out []string
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return []string{"listing nodes: " + err.Error()}
	}
	for _, n := range nodes.Items {
		if !NodeReady(&n) {
			out = append(out, "node "+n.Name+" not Ready")
		}
	}
	pods, err := client.CoreV1().Pods("kube-system").List(ctx, metav1.ListOptions{})
	if err != nil {
		return append(out, "listing pods: "+err.Error())
	}
	for _, p := range pods.Items {
		if !podReady(&p) {
			out = append(out, fmt.Sprintf("pod %s %s", p.Name, p.Status.Phase))
		}
	}
	sort.Strings(out)
	return out
}

// NodeReady reports the node's Ready condition.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func podReady(p *corev1.Pod) bool {
	if p.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// waitNodeReady waits for a node container's Node to be Ready, by
// whatever name it registered.
func (c *Cluster) waitNodeReady(ctx context.Context, container string, limit time.Duration) error {
	client, err := c.ClientContext(ctx)
	if err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, time.Second, limit, true, func(ctx context.Context) (bool, error) {
		name, found, err := c.NodeName(ctx, container)
		if err != nil || !found {
			return false, nil
		}
		n, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		return err == nil && NodeReady(n), nil
	})
}

func isNotFound(err error) bool { return apierrors.IsNotFound(err) }
