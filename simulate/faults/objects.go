package faults

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serviceDelete deletes the first LoadBalancer Service (by namespace and
// name) while the controllers change hands: its load balancer must go with
// it, neither leaked nor recreated.
func (in *Injector) serviceDelete(ctx context.Context) (string, error) {
	svcs, err := in.o.Client.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("listing Services: %w", err)
	}
	var names []string
	for _, s := range svcs.Items {
		if s.Spec.Type == corev1.ServiceTypeLoadBalancer && s.DeletionTimestamp == nil {
			names = append(names, s.Namespace+"/"+s.Name)
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("no LoadBalancer Service to delete: rehearse with --load light or more")
	}
	sort.Strings(names)
	ns, name, _ := strings.Cut(names[0], "/")
	in.started(names[0], "deleting LoadBalancer Service "+names[0]+" at the hand-off")
	if err := in.o.Client.CoreV1().Services(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return names[0], fmt.Errorf("deleting Service %s: %w", names[0], err)
	}
	return names[0], nil
}

// nodeReregister deletes a worker's Node and creates it again under the
// same name with a ProviderID of another provider. The API forbids changing
// a ProviderID; re-registration does not.
func (in *Injector) nodeReregister(ctx context.Context) (string, error) {
	nodes, err := in.o.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", fmt.Errorf("listing Nodes: %w", err)
	}
	var worker *corev1.Node
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if _, cp := n.Labels["node-role.kubernetes.io/control-plane"]; !cp && n.Spec.ProviderID != "" {
			worker = n
			break
		}
	}
	if worker == nil {
		return "", fmt.Errorf("no worker with a ProviderID to re-register")
	}
	other := "other://" + worker.Name
	in.started(worker.Name, fmt.Sprintf("re-registering Node %s with ProviderID %s (was %s)", worker.Name, other, worker.Spec.ProviderID))
	if err := in.o.Client.CoreV1().Nodes().Delete(ctx, worker.Name, metav1.DeleteOptions{}); err != nil {
		return worker.Name, fmt.Errorf("deleting Node %s: %w", worker.Name, err)
	}
	again := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: worker.Name, Labels: worker.Labels, Annotations: worker.Annotations},
		Spec:       corev1.NodeSpec{ProviderID: other, PodCIDR: worker.Spec.PodCIDR, PodCIDRs: worker.Spec.PodCIDRs},
	}
	if _, err := in.o.Client.CoreV1().Nodes().Create(ctx, again, metav1.CreateOptions{}); err != nil {
		return worker.Name, fmt.Errorf("registering Node %s again: %w", worker.Name, err)
	}
	return worker.Name, nil
}
