package migrate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/providers"
)

// CCMManifest is a user's own cloud-controller-manager manifest (e.g.
// `helm template` of their chart): its other objects are applied as they
// are; its one DaemonSet or Deployment is kept — replicas, node selector,
// tolerations, affinity, service account, flags — with the changes the
// simulated cloud needs, each listed in the plan with why.
type CCMManifest struct {
	Path   string
	others []string // the other objects, as written
	// One of these is set.
	daemonSet  *appsv1.DaemonSet
	deployment *appsv1.Deployment
	container  int // index of the manager's container
}

// ReadCCMManifest reads a manifest file (a regular file of at most
// boundedfile.ManifestLimit) and finds its manager workload.
func ReadCCMManifest(path string) (*CCMManifest, error) {
	b, err := boundedfile.Read(path, boundedfile.ManifestLimit)
	if err != nil {
		return nil, err
	}
	m, err := parseCCMManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.Path = path
	return m, nil
}

func parseCCMManifest(b []byte) (*CCMManifest, error) {
	m := &CCMManifest{}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
	workloads := 0
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("not YAML: %w", err)
		}
		var meta runtime.TypeMeta
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, fmt.Errorf("not a Kubernetes object: %w", err)
		}
		switch {
		case meta.Kind == "" && len(bytes.TrimSpace(stripComments(doc))) == 0:
			continue
		case meta.APIVersion == "apps/v1" && meta.Kind == "DaemonSet":
			workloads++
			m.daemonSet = &appsv1.DaemonSet{}
			err = yaml.UnmarshalStrict(doc, m.daemonSet)
		case meta.APIVersion == "apps/v1" && meta.Kind == "Deployment":
			workloads++
			m.deployment = &appsv1.Deployment{}
			err = yaml.UnmarshalStrict(doc, m.deployment)
		case meta.Kind == "":
			return nil, fmt.Errorf("an object without kind:\n%s", doc)
		default:
			m.others = append(m.others, strings.TrimSpace(string(doc))+"\n")
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", meta.Kind, err)
		}
	}
	if workloads != 1 {
		return nil, fmt.Errorf("has %d apps/v1 DaemonSets and Deployments: a cloud-controller-manager manifest has exactly one", workloads)
	}
	i, err := managerContainer(m.template().Spec.Containers)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", m.Kind(), m.meta().Name, err)
	}
	m.container = i
	return m, nil
}

// managerContainer picks the container running the manager: the only one,
// or the one named or imaged after cloud-controller-manager.
func managerContainer(cs []corev1.Container) (int, error) {
	if len(cs) == 1 {
		return 0, nil
	}
	found := -1
	for i, c := range cs {
		if strings.Contains(c.Name+" "+c.Image, "cloud-controller-manager") {
			if found >= 0 {
				return 0, fmt.Errorf("containers %s and %s both look like the cloud-controller-manager", cs[found].Name, c.Name)
			}
			found = i
		}
	}
	if found < 0 {
		return 0, fmt.Errorf("no container is named or imaged after cloud-controller-manager among %d", len(cs))
	}
	return found, nil
}

// Kind is the manifest's workload: managers.DaemonSet or Deployment.
func (m *CCMManifest) Kind() string {
	if m.deployment != nil {
		return managers.Deployment
	}
	return managers.DaemonSet
}

func (m *CCMManifest) meta() *metaRef {
	if m.deployment != nil {
		return &metaRef{m.deployment.Namespace, m.deployment.Name}
	}
	return &metaRef{m.daemonSet.Namespace, m.daemonSet.Name}
}

type metaRef struct{ Namespace, Name string }

func (m *CCMManifest) template() *corev1.PodTemplateSpec {
	if m.deployment != nil {
		return &m.deployment.Spec.Template
	}
	return &m.daemonSet.Spec.Template
}

// Flags are the manager's flags as the manifest gives them (command after
// the binary, then args).
func (m *CCMManifest) Flags() []string {
	c := m.template().Spec.Containers[m.container]
	var out []string
	for _, a := range append(slices.Clone(c.Command), c.Args...) {
		switch n := len(out); {
		case strings.HasPrefix(a, "--"):
			out = append(out, a)
		case n > 0 && !strings.Contains(out[n-1], "="):
			// "--v", "2": one flag, written as --v=2.
			out[n-1] += "=" + a
		}
	}
	return out
}

// ServiceAccount is the identity the manager's pods run as.
func (m *CCMManifest) ServiceAccount() string {
	sa := m.template().Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	return "system:serviceaccount:" + m.namespace() + ":" + sa
}

func (m *CCMManifest) namespace() string {
	if ns := m.meta().Namespace; ns != "" {
		return ns
	}
	return "default"
}

// ownManifestFlags are flags of the manifest handover sets for the
// simulated cloud and its observers, with why; "" removes the flag.
func ownManifestFlags(p providers.Manager, clusterName, podSubnet string) []struct{ name, value, why string } {
	return []struct{ name, value, why string }{
		{"cloud-provider", p.CloudProvider, "the simulated cloud's provider"},
		{"cloud-config", p.CCMCloudConfigPath, "the simulated cloud's configuration"},
		{"cluster-name", clusterName, "the rehearsal cluster's name, which its kube-controller-manager has: check that your manifest's (default \"kubernetes\") equals your kube-controller-manager's --cluster-name, or every load balancer is made anew at the hand-off"},
		{"cluster-cidr", podSubnet, "the rehearsal cluster's pod subnet"},
		{"kubeconfig", "", "the pods use their service account"},
		{"authentication-kubeconfig", "", "the pods use their service account"},
		{"authorization-kubeconfig", "", "the pods use their service account"},
		{"secure-port", "", "the observers read /healthz and /metrics on port 10258"},
		{"bind-address", "127.0.0.1", "the observers read /healthz and /metrics on each node's loopback"},
		{"authorization-always-allow-paths", "/healthz,/readyz,/livez,/metrics", "the observers read them without credentials"},
		{"enable-leader-migration", "", "leader migration is set as the procedure sets it, step by step"},
		{"leader-migration-config", "", "leader migration is set as the procedure sets it, step by step"},
		{"leader-elect-resource-name", "", "the observers and the procedure's waits read the main lease by its default name"},
		{"leader-elect-resource-namespace", "", "the observers and the procedure's waits read the leases in kube-system"},
	}
}

// render is the manifest as applied: the manager's flags are flags (the
// manifest's, handover's own replacing theirs, then extra), and each change
// is described.
func (m *CCMManifest) render(p providers.Manager, version, clusterName, podSubnet string, extra []string, config string) (string, []string) {
	w := m.clone()
	tpl := w.template()
	c := &tpl.Spec.Containers[w.container]
	var changes []string
	change := func(format string, a ...any) { changes = append(changes, fmt.Sprintf(format, a...)) }

	if img := p.Forms.Image(version); c.Image != img {
		change("image %s → %s: the simulated cloud's cloud-controller-manager %s (yours runs your cloud's provider)", c.Image, img, version)
		c.Image = img
	}
	if c.ImagePullPolicy != corev1.PullIfNotPresent {
		change("imagePullPolicy → IfNotPresent: no registry; the image is on every node")
		c.ImagePullPolicy = corev1.PullIfNotPresent
	}
	flags, flagChanges := m.runFlags(p, clusterName, podSubnet)
	changes = append(changes, flagChanges...)
	flags = cmdline.Merge(flags, extra)
	if cmd := []string{"/usr/local/bin/cloud-controller-manager"}; !slices.Equal(c.Command, append(cmd, flags...)) {
		change("command: /usr/local/bin/cloud-controller-manager with the flags above; your flags otherwise as given (%d)", len(m.Flags()))
		c.Command, c.Args = append(cmd, flags...), nil
	}
	if !tpl.Spec.HostNetwork {
		change("hostNetwork: true: the observers dial each manager on its node's loopback, and the managers reach the simulated cloud from the node")
		tpl.Spec.HostNetwork = true
	}
	for _, pr := range []struct {
		name string
		p    *corev1.Probe
	}{{"livenessProbe", c.LivenessProbe}, {"readinessProbe", c.ReadinessProbe}, {"startupProbe", c.StartupProbe}} {
		name, p := pr.name, pr.p
		if p != nil && p.HTTPGet != nil && p.HTTPGet.Host == "" {
			p.HTTPGet.Host = "127.0.0.1"
			change("%s.httpGet.host: 127.0.0.1: the manager listens on the loopback only (as kubeadm's managers do)", name)
		}
	}
	if w.deployment != nil && (tpl.Spec.Affinity == nil || tpl.Spec.Affinity.PodAntiAffinity == nil) {
		tpl.Spec.Affinity = oneReplicaPerNode(tpl.Labels)
		change("affinity: one replica per node: on the host network two would share port 10258")
	}
	mountHostFile(tpl, c, "handover-cloud-config", p.CCMCloudConfigPath)
	change("volume handover-cloud-config: %s from the node, read-only (the simulated cloud's configuration)", p.CCMCloudConfigPath)
	out := append([]string(nil), m.others...)
	if config != "" {
		mountConfigMap(tpl, c, "handover-leader-migration", p.LeaderMigrationConfigMap, LMConfigPath)
		change("ConfigMap %s with the leader-migration configuration, mounted at %s", p.LeaderMigrationConfigMap, LMConfigPath)
		out = append(out, lmConfigMap(w.namespace(), p.LeaderMigrationConfigMap, config))
	}
	return strings.Join(append(out, objectYAML(w.object())), "---\n"), changes
}

// objectYAML is an object as one would write it: without the status and
// the empty creation timestamps a typed object marshals.
func objectYAML(obj any) string {
	b, _ := yaml.Marshal(obj)
	var m map[string]any
	_ = yaml.Unmarshal(b, &m)
	delete(m, "status")
	dropNullTimestamps(m)
	b, _ = yaml.Marshal(m)
	return string(b)
}

func dropNullTimestamps(v any) {
	switch x := v.(type) {
	case map[string]any:
		if t, ok := x["creationTimestamp"]; ok && t == nil {
			delete(x, "creationTimestamp")
		}
		for _, c := range x {
			dropNullTimestamps(c)
		}
	case []any:
		for _, c := range x {
			dropNullTimestamps(c)
		}
	}
}

// runFlags are the manifest's flags with handover's own in place of
// theirs, and what changed.
func (m *CCMManifest) runFlags(p providers.Manager, clusterName, podSubnet string) ([]string, []string) {
	flags := m.Flags()
	var changes []string
	for _, f := range ownManifestFlags(p, clusterName, podSubnet) {
		old, had := cmdline.Value(flags, f.name)
		switch {
		case f.value == "" && had:
			changes = append(changes, fmt.Sprintf("--%s removed: %s", f.name, f.why))
			flags = removeFlag(flags, f.name)
		case f.value != "" && old != f.value:
			changes = append(changes, fmt.Sprintf("--%s=%s (was %s): %s", f.name, f.value, orNone(old, had), f.why))
			flags = setFlag(flags, f.name, f.value)
		}
	}
	return flags, changes
}

func orNone(v string, had bool) string {
	if !had {
		return "not set"
	}
	return v
}

func (m *CCMManifest) clone() *CCMManifest {
	out := *m
	if m.deployment != nil {
		out.deployment = m.deployment.DeepCopy()
	} else {
		out.daemonSet = m.daemonSet.DeepCopy()
	}
	return &out
}

func (m *CCMManifest) object() any {
	if m.deployment != nil {
		return m.deployment
	}
	return m.daemonSet
}

func oneReplicaPerNode(labels map[string]string) *corev1.Affinity {
	return &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: "kubernetes.io/hostname"}}}}
}

func mountHostFile(tpl *corev1.PodTemplateSpec, c *corev1.Container, name, path string) {
	t := corev1.HostPathFile
	tpl.Spec.Volumes = append(tpl.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path, Type: &t}}})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path, ReadOnly: true})
}

func mountConfigMap(tpl *corev1.PodTemplateSpec, c *corev1.Container, name, configMap, path string) {
	tpl.Spec.Volumes = append(tpl.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: configMap}}}})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path, SubPath: "leadermigration.conf", ReadOnly: true})
}

func lmConfigMap(namespace, name, config string) string {
	cm := corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}
	cm.Name, cm.Namespace = name, namespace
	cm.Data = map[string]string{"leadermigration.conf": config}
	return objectYAML(cm)
}

func stripComments(b []byte) []byte {
	var out []byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			out = append(out, l...)
			out = append(out, '\n')
		}
	}
	return out
}
