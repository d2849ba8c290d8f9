package live

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/verify/observe"
)

// fileFlags are the managers' flags naming a file describe reads where
// the API shows it: only leader migration's; a cloud-config may hold a
// secret (azure.json's aadClientSecret) and is never read.
var fileFlags = []string{"leader-migration-config"}

// Read reads c: its version, its nodes, its LoadBalancer Services by
// count, and the managers among kube-system's pods (as observe finds
// them), each with its form and the files its flags name that a
// ConfigMap holds. It only reads (Needs lists what).
func Read(ctx context.Context, c kubernetes.Interface, source string) (*Cluster, error) {
	v, err := c.Discovery().ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("cannot reach the cluster: %w", err)
	}
	cl := &Cluster{Source: source, Version: v.GitVersion}
	nodes, err := c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, denied("listing the nodes", err)
	}
	cl.Nodes = nodes.Items
	svcs, err := c.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, denied("listing the Services", err)
	}
	for _, s := range svcs.Items {
		if s.Spec.Type == corev1.ServiceTypeLoadBalancer {
			cl.LoadBalancers++
		}
	}
	pods, err := c.CoreV1().Pods(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, denied("listing kube-system's pods", err)
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		name, ctr := observe.ManagerContainer(p)
		if ctr == nil {
			continue
		}
		if why := gone(p); why != "" {
			cl.Gone = append(cl.Gone, fmt.Sprintf("%s's pod %s/%s (%s)", name, p.Namespace, p.Name, why))
			continue
		}
		m := Manager{Name: name, Pod: p.Namespace + "/" + p.Name, Node: p.Spec.NodeName, Image: ctr.Image,
			Args: append(slices.Clone(ctr.Command), ctr.Args...), Files: map[string]File{}, Unread: map[string]string{}}
		if err := m.readForm(ctx, c, p); err != nil {
			return nil, err
		}
		if err := m.readFiles(ctx, c, p, ctr); err != nil {
			return nil, err
		}
		cl.Managers = append(cl.Managers, m)
	}
	slices.SortFunc(cl.Managers, func(a, b Manager) int { return strings.Compare(a.Name+a.Pod, b.Name+b.Pod) })
	return cl, nil
}

// readForm is how the pod runs: a static pod (its mirror), or a
// DaemonSet's or a Deployment's (through its ReplicaSet).
func (m *Manager) readForm(ctx context.Context, c kubernetes.Interface, p *corev1.Pod) error {
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		m.Form = StaticPod
		return nil
	}
	owner := metav1.GetControllerOf(p)
	switch {
	case owner == nil:
		return nil
	case owner.Kind == "DaemonSet":
		m.Form, m.Workload = DaemonSet, "daemonset/"+owner.Name
		return nil
	case owner.Kind != "ReplicaSet":
		return nil
	}
	rs, err := c.AppsV1().ReplicaSets(p.Namespace).Get(ctx, owner.Name, metav1.GetOptions{})
	if err != nil {
		return denied("reading the ReplicaSet of "+m.Pod, err)
	}
	dep := metav1.GetControllerOf(rs)
	if dep == nil || dep.Kind != "Deployment" {
		return nil
	}
	d, err := c.AppsV1().Deployments(p.Namespace).Get(ctx, dep.Name, metav1.GetOptions{})
	if err != nil {
		return denied("reading the Deployment of "+m.Pod, err)
	}
	m.Form, m.Workload, m.Replicas = Deployment, "deployment/"+d.Name, 1
	if d.Spec.Replicas != nil {
		m.Replicas = int(*d.Spec.Replicas)
	}
	return nil
}

// readFiles reads the files of fileFlags that a ConfigMap mounted into
// the container holds, and says why the others cannot be read. The flags
// are read as Describe reads them ("--name value" too).
func (m *Manager) readFiles(ctx context.Context, c kubernetes.Interface, p *corev1.Pod, ctr *corev1.Container) error {
	flags := cmdline.Long(m.Args)
	for _, flag := range fileFlags {
		file, ok := cmdline.Value(flags, flag)
		if !ok || file == "" {
			continue
		}
		src, why := source(p, ctr, file)
		if src == nil {
			m.Unread[file] = why
			continue
		}
		cm, err := c.CoreV1().ConfigMaps(p.Namespace).Get(ctx, src.name, metav1.GetOptions{})
		if err != nil {
			return denied(fmt.Sprintf("reading ConfigMap %s/%s, which %s mounts at %s", p.Namespace, src.name, m.Pod, file), err)
		}
		content, ok := cm.Data[src.key]
		if !ok {
			m.Unread[file] = fmt.Sprintf("ConfigMap %s/%s has no key %s", p.Namespace, src.name, src.key)
			continue
		}
		m.Files[file] = File{Content: content, From: fmt.Sprintf("ConfigMap %s/%s key %s", p.Namespace, src.name, src.key)}
	}
	return nil
}

// configMapKey is a ConfigMap's key.
type configMapKey struct{ name, key string }

// source is the ConfigMap key the container sees at file, or nil and
// what holds it instead.
func source(p *corev1.Pod, ctr *corev1.Container, file string) (*configMapKey, string) {
	for _, vm := range ctr.VolumeMounts {
		rel, ok := under(file, vm.MountPath)
		if !ok {
			continue
		}
		vol := volume(p, vm.Name)
		switch {
		case vol == nil:
			return nil, "mounted from volume " + vm.Name + ", which the pod does not have"
		case vol.ConfigMap != nil:
			return configMapSource(vol.ConfigMap, vm.SubPath, rel)
		case vol.HostPath != nil:
			return nil, "a file on the node (hostPath " + path.Join(vol.HostPath.Path, vm.SubPath, rel) + ")"
		}
		return nil, "mounted from volume " + vm.Name + ", which is not a ConfigMap"
	}
	return nil, "in the container's image or file system: no volume is mounted there"
}

// under says whether file is mount or below it, and its path there.
func under(file, mount string) (string, bool) {
	file, mount = path.Clean(file), path.Clean(mount)
	if file == mount {
		return "", true
	}
	rel, ok := strings.CutPrefix(file, mount+"/")
	return rel, ok
}

// configMapSource is the key of a ConfigMap volume a file is: the
// subPath's, or its path in the volume, through the volume's items.
func configMapSource(v *corev1.ConfigMapVolumeSource, subPath, rel string) (*configMapKey, string) {
	p := path.Join(subPath, rel)
	if p == "." || p == "" {
		return nil, "a directory of ConfigMap " + v.Name + ", not one of its keys"
	}
	if len(v.Items) == 0 {
		return &configMapKey{name: v.Name, key: p}, ""
	}
	for _, it := range v.Items {
		if path.Clean(it.Path) == p {
			return &configMapKey{name: v.Name, key: it.Key}, ""
		}
	}
	return nil, "ConfigMap " + v.Name + " projects no key at " + p
}

func volume(p *corev1.Pod, name string) *corev1.Volume {
	for i := range p.Spec.Volumes {
		if p.Spec.Volumes[i].Name == name {
			return &p.Spec.Volumes[i]
		}
	}
	return nil
}

// gone is why a manager's pod does not run as the cluster runs it: it
// finished (Succeeded or Failed: an evicted or replaced pod keeps its old
// flags) or is being deleted (a rollout's old pod); "" for a pod that
// runs or is starting.
func gone(p *corev1.Pod) string {
	switch {
	case p.DeletionTimestamp != nil:
		return "being deleted"
	case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		return string(p.Status.Phase)
	}
	return ""
}
