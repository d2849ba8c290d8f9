package scale

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/provider"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/waits"
)

// uninitializedTaint is what an external kubelet registers its node with
// and the cloud-controller-manager's cloud-node controller removes.
const uninitializedTaint = "node.cloudprovider.kubernetes.io/uninitialized"

// join brings one simulated node up: its machine (a virtual instance),
// then its kubelet's registration.
func (f *Fleet) join(ctx context.Context, name, phase string) error {
	ctx, cancel := context.WithTimeout(ctx, waits.Of(ctx, WaitNodeJoin))
	defer cancel()
	inst, err := cloudserver.AddVirtualInstance(ctx, f.admin, name)
	if err != nil {
		return err
	}
	external, err := f.o.External(ctx)
	if err != nil {
		return fmt.Errorf("how kubelets register now: %w", err)
	}
	mode := "in-tree"
	if external {
		mode = "external"
	}
	f.emit(timeline.Event{Kind: timeline.ScaleJoin, Node: name, Attrs: map[string]string{"mode": mode, "phase": phase}})
	node := f.node(inst, external)
	if !external {
		if err := f.inTreeRegistration(ctx, node); err != nil {
			return fmt.Errorf("asking the cloud as an in-tree kubelet: %w", err)
		}
	}
	err = retry(ctx, func(ctx context.Context) error {
		_, err := f.o.Client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil // an earlier try went through
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("registering the Node: %w", err)
	}
	return nil
}

// node is the Node a kubelet on inst registers: its own address (the
// kubelet's --node-ip), the simulated-node marks, and, from an external
// kubelet, the taint the cloud-controller-manager lifts.
func (f *Fleet) node(inst api.Instance, external bool) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: inst.Name,
			Labels:      map[string]string{"kubernetes.io/hostname": inst.Name, "kubernetes.io/os": "linux", SimulatedLabel: "true"},
			Annotations: map[string]string{KwokAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: kwokTaint, Value: "fake", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{KubeletVersion: f.o.KubeletVersion, OperatingSystem: "linux", Architecture: "amd64"},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: inst.Name}}},
	}
	for _, a := range inst.Addresses {
		if a.Type == string(corev1.NodeInternalIP) {
			n.Status.Addresses = append([]corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: a.Address}}, n.Status.Addresses...)
		}
	}
	if external {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: uninitializedTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule})
	}
	return n
}

// inTreeRegistration asks the cloud what an in-tree kubelet asks before it
// registers — its instance's ID, type, zone and addresses — through the
// provider code in-tree kubelets run, as that node, and writes the answers
// onto the Node. A throttled call is retried, as the kubelet retries its
// registration.
func (f *Fleet) inTreeRegistration(ctx context.Context, n *corev1.Node) error {
	client := f.o.cloudClient("kubelet")
	client.Node = n.Name
	client.UserAgent = "kubelet/" + provider.Name + "-provider"
	cloud := provider.NewWithClient(client, n.Name, f.o.CloudAs)
	instances, _ := cloud.Instances()
	name := types.NodeName(n.Name)
	return retry(ctx, func(ctx context.Context) error {
		id, err := instances.InstanceID(ctx, name)
		if err != nil {
			return err
		}
		typ, err := instances.InstanceType(ctx, name)
		if err != nil {
			return err
		}
		zone, err := cloud.GetZoneByNodeName(ctx, name)
		if err != nil {
			return err
		}
		addrs, err := instances.NodeAddresses(ctx, name)
		if err != nil {
			return err
		}
		n.Spec.ProviderID = cloud.ProviderName() + "://" + id
		n.Labels[corev1.LabelInstanceTypeStable] = typ
		n.Labels[corev1.LabelTopologyZone] = zone.FailureDomain
		n.Labels[corev1.LabelTopologyRegion] = zone.Region
		n.Status.Addresses = addrs
		return nil
	})
}

// retry does an action until it succeeds or ctx ends, waiting 1 s after
// the first failure and half as long again after each, up to 10 s.
func retry(ctx context.Context, do func(context.Context) error) error {
	wait := time.Second
	for {
		last := do(ctx)
		if last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (last: %v)", ctx.Err(), last)
		case <-time.After(wait):
		}
		wait = min(wait*3/2, 10*time.Second)
	}
}
