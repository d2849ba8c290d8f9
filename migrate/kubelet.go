package migrate

import (
	"context"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/handover-sh/handover/clusters/kindcluster"
)

const kubeletFlagsFile = "/var/lib/kubelet/kubeadm-flags.env"

// kubeletArgs parses kubeadm's KUBELET_KUBEADM_ARGS line.
func kubeletArgs(env string) []string {
	line := strings.TrimSpace(env)
	line = strings.TrimPrefix(line, `KUBELET_KUBEADM_ARGS="`)
	return strings.Fields(strings.TrimSuffix(line, `"`))
}

func renderKubeletArgs(args []string) string {
	return `KUBELET_KUBEADM_ARGS="` + strings.Join(args, " ") + "\"\n"
}

// externalKubelet is the kubelet of an out-of-tree cluster.
func externalKubelet(args []string) []string {
	return setFlag(removeFlag(args, "cloud-config"), "cloud-provider", "external")
}

// kubeletExternal reports whether a node's kubelet runs with
// --cloud-provider=external.
func (e *Env) kubeletExternal(ctx context.Context, node string) (bool, error) {
	env, err := e.Cluster.ReadFile(ctx, node, kubeletFlagsFile)
	if err != nil {
		return false, err
	}
	v, _ := flagValue(kubeletArgs(env), "cloud-provider")
	return v == "external", nil
}

// KubeletExternal reports whether a node's kubelet runs with
// --cloud-provider=external.
func (e *Env) KubeletExternal(ctx context.Context, node string) (bool, error) {
	return e.kubeletExternal(ctx, node)
}

// switchKubelet restarts a node's kubelet with --cloud-provider=external
// and waits for the node to be Ready again.
func (e *Env) switchKubelet(ctx context.Context, node string) error {
	if ext, err := e.kubeletExternal(ctx, node); err != nil || ext {
		return err
	}
	env, err := e.Cluster.ReadFile(ctx, node, kubeletFlagsFile)
	if err != nil {
		return err
	}
	args := externalKubelet(kubeletArgs(env))
	switch st := e.Spec.setup(); {
	case st.SwitchByHostname:
		args, err = e.dropNodeName(ctx, node, args)
	case st.SwitchByMetadata:
		args, err = e.metadataNodeName(ctx, node, args)
	}
	if err != nil {
		return err
	}
	if err := e.Cluster.WriteFile(ctx, node, kubeletFlagsFile, renderKubeletArgs(args)); err != nil {
		return err
	}
	restarted := time.Now()
	if _, err := e.Cluster.Exec(ctx, node, "systemctl", "restart", "kubelet"); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, e.Spec.Intervals.Of(IntervalKubeletRestart))
	defer cancel()
	return e.poll(wctx, func(ctx context.Context, e *Env) (bool, error) {
		return e.kubeletBack(ctx, node, restarted)
	})
}

// kubeletBack: the node's kubelet renewed its lease after since (a kubelet
// reports status only on change, so the Ready condition's heartbeat can
// lag minutes) and the node is Ready.
func (e *Env) kubeletBack(ctx context.Context, machine string, since time.Time) (bool, error) {
	node, _, err := e.Cluster.NodeName(ctx, machine)
	if err != nil {
		return false, err
	}
	l, err := e.Client.CoordinationV1().Leases("kube-node-lease").Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	if l.Spec.RenewTime == nil || l.Spec.RenewTime.Time.Before(since) {
		return false, fmt.Errorf("node %s: its kubelet has not renewed its lease since the restart", node)
	}
	n, err := e.Client.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return false, err
	}
	for _, c := range n.Status.Conditions {
		if c.Type == "Ready" && c.Status == "True" {
			return true, nil
		}
	}
	return false, fmt.Errorf("node %s is not Ready after its kubelet restart", node)
}

// setCordon cordons or uncordons the control-plane nodes.
func (e *Env) setCordon(ctx context.Context, cordon bool) error {
	nodes, err := e.Cluster.ControlPlanes()
	if err != nil {
		return err
	}
	for _, n := range nodes {
		if err := e.setNodeCordon(ctx, n.String(), cordon); err != nil {
			return err
		}
	}
	return nil
}

// setNodeCordon cordons or uncordons a machine's Node.
func (e *Env) setNodeCordon(ctx context.Context, machine string, cordon bool) error {
	node, _, err := e.Cluster.NodeName(ctx, machine)
	if err != nil {
		return err
	}
	patch := fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, cordon)
	if _, err := e.Client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("cordon=%t %s: %w", cordon, node, err)
	}
	return nil
}

func (e *Env) cordoned(ctx context.Context, want bool) (bool, error) {
	nodes, err := e.Cluster.ControlPlanes()
	if err != nil {
		return false, err
	}
	for _, n := range nodes {
		name, _, err := e.Cluster.NodeName(ctx, n.String())
		if err != nil {
			return false, err
		}
		node, err := e.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if node.Spec.Unschedulable != want {
			return false, nil
		}
	}
	return true, nil
}

// workers lists the worker nodes.
func (e *Env) workers() ([]string, error) {
	all, err := e.Cluster.Nodes()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range all {
		if r, _ := n.Role(); r == kindcluster.RoleWorker {
			out = append(out, n.String())
		}
	}
	return out, nil
}
