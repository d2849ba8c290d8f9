package scale

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// keepDaemonSetsOff keeps the kube-system DaemonSets that would run on
// simulated nodes (those tolerating kwok's taint: node agents tolerate
// everything) off them, as a real cluster's node agents would not run on a
// machine with no container runtime: kwok would report their pods running,
// hundreds of pods that only load the scheduler. Each such DaemonSet gets
// "no simulated-node label" in every term of its required node affinity
// (its own terms kept). A procedure that renders a DaemonSet again
// (kubeadm's kube-proxy at an upgrade) loses it, so the fleet calls this
// again as it goes; a DaemonSet that has it, or does not tolerate the
// taint (the cloud-controller-manager's), is not written.
func keepDaemonSetsOff(ctx context.Context, c kubernetes.Interface) error {
	dss, err := c.AppsV1().DaemonSets("kube-system").List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return fmt.Errorf("listing kube-system DaemonSets: %w", err)
	}
	for i := range dss.Items {
		ds := &dss.Items[i]
		spec := &ds.Spec.Template.Spec
		if !toleratesKwok(spec.Tolerations) || keptOff(spec.Affinity) {
			continue
		}
		excludeSimulated(spec)
		// A conflict (the DaemonSet changed meanwhile) waits for the next call.
		if _, err := c.AppsV1().DaemonSets("kube-system").Update(ctx, ds, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("keeping DaemonSet kube-system/%s off simulated nodes: %w", ds.Name, err)
		}
	}
	return nil
}

var notSimulated = corev1.NodeSelectorRequirement{Key: SimulatedLabel, Operator: corev1.NodeSelectorOpDoesNotExist}

// toleratesKwok: a toleration of every taint, or of kwok's.
func toleratesKwok(ts []corev1.Toleration) bool {
	return slices.ContainsFunc(ts, func(t corev1.Toleration) bool {
		return t.Operator == corev1.TolerationOpExists && (t.Key == "" || t.Key == kwokTaint)
	})
}

// excludeSimulated adds notSimulated to every required node selector term,
// or makes the one term that holds it.
func excludeSimulated(spec *corev1.PodSpec) {
	if spec.Affinity == nil {
		spec.Affinity = &corev1.Affinity{}
	}
	if spec.Affinity.NodeAffinity == nil {
		spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	na := spec.Affinity.NodeAffinity
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}
	}
	terms := na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for i := range terms {
		if !excludes(terms[i]) {
			terms[i].MatchExpressions = append(terms[i].MatchExpressions, notSimulated)
		}
	}
}

// keptOff: every term of a required node affinity excludes simulated nodes.
func keptOff(a *corev1.Affinity) bool {
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	for _, t := range terms {
		if !excludes(t) {
			return false
		}
	}
	return len(terms) > 0
}

func excludes(t corev1.NodeSelectorTerm) bool {
	return slices.ContainsFunc(t.MatchExpressions, func(r corev1.NodeSelectorRequirement) bool {
		return r.Key == notSimulated.Key && r.Operator == notSimulated.Operator
	})
}
