package load

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/waits"
)

// Pulls from the cloud's registry: every pullEvery each Ready node starts
// a pod of an image only the cloud's credentials let it pull
// (imagePullPolicy Always: every start asks the registry), across the
// switch, so a kubelet that lost its way to those credentials shows as a
// failed pull on its node (kubernetes/kubernetes#120411). Each attempt is
// an image.pull event; one whose node went away meanwhile is not judged.

// pullFailures are the container reasons of a pull the kubelet gave up.
var pullFailures = map[string]bool{"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true, "RegistryUnavailable": true}

const pullLabel = "handover.sh/load-pull"

// pullImages runs the pull rounds until ctx ends.
func (g *Generator) pullImages(ctx context.Context) {
	if g.o.PullImage == "" || g.p.PullEvery == 0 {
		return
	}
	t := time.NewTicker(g.p.PullEvery)
	defer t.Stop()
	for {
		g.pullRound(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// pullRound starts one pull on each Ready node and waits for them all.
func (g *Generator) pullRound(ctx context.Context) {
	nodes, err := g.c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		if ctx.Err() == nil {
			g.fail("list the nodes to pull on", err)
		}
		return
	}
	var names []string
	for _, node := range nodes.Items {
		if pullable(node) && !g.terminated(node.Name) {
			names = append(names, node.Name)
		}
	}
	// Spread over the round, not all at once: eight pod starts together
	// are a burst of CPU on a small host that the API servers' readiness
	// then pays for.
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if sleep(ctx, g.p.PullEvery*time.Duration(i)/time.Duration(len(names))) {
				g.pullOn(ctx, name)
			}
		}()
	}
	wg.Wait()
}

// kwokNode marks a node kwok simulates (kwok's own annotation): it has no
// kubelet to pull with.
const kwokNode = "kwok.x-k8s.io/node"

// terminated: the load terminated the node's instance.
func (g *Generator) terminated(node string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Contains(g.sum.Terminated, node)
}

// pullable: a Ready node with a kubelet, not being drained or deleted.
func pullable(n corev1.Node) bool {
	_, simulated := n.Annotations[kwokNode]
	return kindcluster.NodeReady(&n) && n.DeletionTimestamp == nil && !n.Spec.Unschedulable && !simulated
}

// pullOn starts a pod on node and records how its pull ended.
func (g *Generator) pullOn(ctx context.Context, node string) {
	pods := g.c.CoreV1().Pods(Namespace)
	zero := int64(0)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "pull-", Namespace: Namespace, Labels: map[string]string{pullLabel: "true"}},
		Spec: corev1.PodSpec{
			NodeName: node, RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: &zero,
			Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			Containers: []corev1.Container{{Name: "echo", Image: g.o.PullImage, ImagePullPolicy: corev1.PullAlways,
				Args: []string{"serve"}}},
		},
	}
	start := time.Now()
	created, err := pods.Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		if ctx.Err() == nil {
			g.fail("start a pull on "+node, err)
		}
		return
	}
	name := created.Name
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), waits.Of(ctx, WaitActionRetry))
		defer cancel()
		_ = pods.Delete(dctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	}()
	var outcome, reason string
	gone := false
	limit := waits.Of(ctx, WaitPull)
	_ = wait.PollUntilContextTimeout(ctx, time.Second, limit, false, func(ctx context.Context) (bool, error) {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			gone = apierrors.IsNotFound(err)
			return gone, nil
		}
		outcome, reason = pullOutcome(p)
		return outcome != "", nil
	})
	if outcome == "" && (ctx.Err() != nil || gone) {
		return // the load stopped, or a drain took the pod: not an attempt to judge
	}
	if outcome == "" {
		if !g.nodeStillReady(ctx, node) || g.terminated(node) {
			return // its node went away or restarts, or its instance is gone: not judged
		}
		outcome, reason = "false", fmt.Sprintf("no pull within %s (wait %s)", limit, WaitPull)
	}
	// Written at the outcome (the timeline's writers stay in order): the
	// attempt began "ms" earlier.
	g.emit(timeline.Event{Kind: timeline.ImagePull, Node: node, Attrs: map[string]string{
		"image": g.o.PullImage, "ok": outcome, "error": reason, "ms": strconv.FormatInt(time.Since(start).Milliseconds(), 10)}})
}

// pullOutcome reads how a pod's pull went: "true" once its container
// ran (or ended), "false" with the kubelet's reason once it gave up, ""
// while under way.
func pullOutcome(p *corev1.Pod) (outcome, reason string) {
	for _, s := range p.Status.ContainerStatuses {
		switch {
		case s.State.Running != nil || s.State.Terminated != nil:
			return "true", ""
		case s.State.Waiting != nil && pullFailures[s.State.Waiting.Reason]:
			return "false", strings.TrimSpace(s.State.Waiting.Reason + ": " + s.State.Waiting.Message)
		}
	}
	return "", ""
}

func (g *Generator) nodeStillReady(ctx context.Context, node string) bool {
	n, err := g.c.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	return err == nil && pullable(*n)
}
