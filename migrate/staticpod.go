package migrate

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/handover-sh/handover/clusters/managers"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

const (
	manifestsDir = "/etc/kubernetes/manifests/"
	// stoppedDir keeps the manifests of managers stopped before their node
	// is removed (handMainLeasesOver).
	stoppedDir = "/etc/kubernetes/stopped-manifests/"
)

// readStaticPod reads a control-plane component's manifest from a node,
// from where a stopped one was moved when it is not in place.
func (e *Env) readStaticPod(ctx context.Context, node, component string) (*corev1.Pod, error) {
	raw, err := e.Cluster.ReadFile(ctx, node, manifestsDir+component+".yaml")
	if err != nil {
		stopped, serr := e.Cluster.ReadFile(ctx, node, stoppedDir+component+".yaml")
		if serr != nil {
			return nil, err
		}
		raw = stopped
	}
	var pod corev1.Pod
	if err := yaml.UnmarshalStrict([]byte(raw), &pod); err != nil {
		return nil, fmt.Errorf("%s manifest on %s: %w", component, node, err)
	}
	if len(pod.Spec.Containers) == 0 {
		return nil, fmt.Errorf("%s manifest on %s has no container", component, node)
	}
	return &pod, nil
}

// writeStaticPod replaces a manifest; the kubelet restarts the pod.
func (e *Env) writeStaticPod(ctx context.Context, node, component string, pod *corev1.Pod) error {
	b, err := yaml.Marshal(pod)
	if err != nil {
		return err
	}
	return e.Cluster.WriteFile(ctx, node, manifestsDir+component+".yaml", string(b))
}

// editStaticPod applies edit to a manifest and writes it when it changed.
// It returns whether it wrote.
func (e *Env) editStaticPod(ctx context.Context, node, component string, edit func(*corev1.Pod)) (bool, error) {
	pod, err := e.readStaticPod(ctx, node, component)
	if err != nil {
		return false, err
	}
	before, _ := yaml.Marshal(pod)
	edit(pod)
	after, _ := yaml.Marshal(pod)
	if string(before) == string(after) {
		return false, nil
	}
	return true, e.writeStaticPod(ctx, node, component, pod)
}

// staticPodRunning reports whether the kubelet runs the manifest as it is
// on disk now: the mirror pod has the file's command and image, its
// container started after since, and it is Ready or, for a manager, the
// manager answers /healthz.
func (e *Env) staticPodRunning(ctx context.Context, node, component string, since time.Time) (bool, error) {
	want, err := e.readStaticPod(ctx, node, component)
	if err != nil {
		return false, err
	}
	// The kubelet names a mirror pod after its Node.
	nodeName, _, err := e.Cluster.NodeName(ctx, node)
	if err != nil {
		return false, err
	}
	pod, err := e.Client.CoreV1().Pods("kube-system").Get(ctx, component+"-"+nodeName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	c, w := pod.Spec.Containers[0], want.Spec.Containers[0]
	if c.Image != w.Image || !sameArgs(c.Command, w.Command) {
		return false, nil
	}
	for _, st := range pod.Status.ContainerStatuses {
		if st.State.Running == nil || st.State.Running.StartedAt.Time.Before(since.Add(-2*time.Second)) {
			return false, nil
		}
	}
	return podReady(pod) || e.serving(ctx, node, component), nil
}

// serving: a manager's new container answers /healthz. kubeadm's startup
// probe (first after 10 s, then every 10 s) marks the pod Ready up to 10 s
// after the manager already serves; asking the manager itself saves that
// wait at every restart. Other components count only as Ready.
func (e *Env) serving(ctx context.Context, node, component string) bool {
	if _, ok := managers.Ports[component]; !ok {
		return false
	}
	a, err := e.Managers.Get(ctx, node, component, "/healthz", 2*time.Second)
	return err == nil && a.Status == http.StatusOK
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// imageVersion is the tag of an image reference.
func imageVersion(image string) string {
	if i := strings.LastIndex(image, ":"); i >= 0 && !strings.Contains(image[i:], "/") {
		return image[i+1:]
	}
	return ""
}

// withVersion swaps an image reference's tag.
func withVersion(image, version string) string {
	if i := strings.LastIndex(image, ":"); i >= 0 && !strings.Contains(image[i:], "/") {
		return image[:i+1] + version
	}
	return image + ":" + version
}

// hostFileMount adds a read-only hostPath file mount at the same path.
func hostFileMount(pod *corev1.Pod, name, path string) {
	removeMount(pod, name)
	file := corev1.HostPathFile
	pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: name,
		VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &file}}})
	c := &pod.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path, ReadOnly: true})
}

func removeMount(pod *corev1.Pod, name string) {
	var vols []corev1.Volume
	for _, v := range pod.Spec.Volumes {
		if v.Name != name {
			vols = append(vols, v)
		}
	}
	pod.Spec.Volumes = vols
	c := &pod.Spec.Containers[0]
	var mounts []corev1.VolumeMount
	for _, m := range c.VolumeMounts {
		if m.Name != name {
			mounts = append(mounts, m)
		}
	}
	c.VolumeMounts = mounts
}
