package fakecluster

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/clusters/kindcluster"
)

// KCMManifest is a kube-controller-manager static pod of version with
// kubeadm's flags plus extra (name → value; "" for a bare flag).
func KCMManifest(version string, extra map[string]string) string {
	args := map[string]string{"kubeconfig": "/etc/kubernetes/controller-manager.conf", "leader-elect": "true",
		"controllers": "*,bootstrapsigner,tokencleaner", "allocate-node-cidrs": "true"}
	for k, v := range extra {
		args[k] = v
	}
	cmd := []string{"kube-controller-manager"}
	for _, k := range sortedKeys(args) {
		if args[k] == "" {
			cmd = append(cmd, "--"+k)
		} else {
			cmd = append(cmd, "--"+k+"="+args[k])
		}
	}
	pod := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "kube-controller-manager", Namespace: "kube-system"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "kube-controller-manager",
			Image: "registry.k8s.io/kube-controller-manager:" + version, Command: cmd}}}}
	b, _ := yaml.Marshal(pod)
	return string(b)
}

// ClusterConfiguration is kubeadm's kube-system/kubeadm-config with the
// given version and controller-manager extraArgs (v1beta3's map shape).
func ClusterConfiguration(version string, extraArgs map[string]string) *corev1.ConfigMap {
	cc := map[string]any{"apiVersion": "kubeadm.k8s.io/v1beta3", "kind": "ClusterConfiguration", "kubernetesVersion": version,
		"networking":        map[string]any{"podSubnet": "10.244.0.0/16"},
		"controllerManager": map[string]any{"extraArgs": extraArgs}}
	b, _ := yaml.Marshal(cc)
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm-config", Namespace: "kube-system"},
		Data: map[string]string{"ClusterConfiguration": string(b)}}
}

// AddNode is a kubeadm join: a control plane's kube-controller-manager is
// rendered from the ClusterConfiguration as it is now (as kubeadm does),
// then the options' files are written; a kubelet flags file carries the
// options' kubelet arguments.
func (c *Cluster) AddNode(ctx context.Context, o kindcluster.AddNodeOptions) (string, error) {
	c.mu.Lock()
	c.added = append(c.added, o)
	c.mu.Unlock()
	files := map[string]string{"/var/lib/kubelet/kubeadm-flags.env": kubeletFlags(o.KubeletArgs)}
	if o.Role == kindcluster.RoleControlPlane {
		version, args, err := c.clusterConfig(ctx)
		if err != nil {
			return "", fmt.Errorf("kubeadm join: %w", err)
		}
		if version != o.Kubernetes {
			return "", fmt.Errorf("kubeadm join: a %s node joins a ClusterConfiguration of %s", o.Kubernetes, version)
		}
		files[manifestsDir+"kube-controller-manager.yaml"] = KCMManifest(version, args)
	}
	for p, body := range o.Files {
		files[p] = body
	}
	name := c.Node(o.Role, files)
	if o.KubeletArgs["register-schedulable"] == "false" {
		return name, c.registerUnschedulable(ctx, name)
	}
	return name, nil
}

// registerUnschedulable is a kubelet's --register-schedulable=false: its
// Node registers cordoned.
func (c *Cluster) registerUnschedulable(ctx context.Context, name string) error {
	n, err := c.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	n.Spec.Unschedulable = true
	_, err = c.Client.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
	return err
}

func (c *Cluster) clusterConfig(ctx context.Context) (string, map[string]string, error) {
	cm, err := c.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, "kubeadm-config", metav1.GetOptions{})
	if err != nil {
		return "", nil, err
	}
	var cc struct {
		KubernetesVersion string `json:"kubernetesVersion"`
		ControllerManager struct {
			ExtraArgs map[string]string `json:"extraArgs"`
		} `json:"controllerManager"`
	}
	if err := yaml.Unmarshal([]byte(cm.Data["ClusterConfiguration"]), &cc); err != nil {
		return "", nil, err
	}
	return cc.KubernetesVersion, cc.ControllerManager.ExtraArgs, nil
}

// KubeletFlags is kubeadm's kubelet flags file with args.
func kubeletFlags(args map[string]string) string {
	line := ""
	for _, k := range sortedKeys(args) {
		if args[k] != "" {
			line += " --" + k + "=" + args[k]
		}
	}
	if line != "" {
		line = line[1:]
	}
	return `KUBELET_KUBEADM_ARGS="` + line + "\"\n"
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
