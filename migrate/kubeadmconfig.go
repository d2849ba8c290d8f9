package migrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/handover-sh/handover/internal/cmdline"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// kubeadm keeps the cluster's configuration in this ConfigMap; nodes that
// join render their static pods from it.
const (
	kubeadmConfigMap = "kubeadm-config"
	clusterConfigKey = "ClusterConfiguration"
	// savedConfigMap keeps the version-N ClusterConfiguration for rollback.
	savedConfigMap = "handover-migration"
)

// clusterConfig is kubeadm's ClusterConfiguration as a generic document, so
// v1beta3 (extraArgs as a map) and v1beta4 (a list) both round-trip.
type clusterConfig map[string]any

func parseClusterConfig(s string) (clusterConfig, error) {
	var c clusterConfig
	if err := yaml.Unmarshal([]byte(s), &c); err != nil {
		return nil, fmt.Errorf("kubeadm ClusterConfiguration: %w", err)
	}
	return c, nil
}

func (c clusterConfig) String() string {
	b, _ := yaml.Marshal(map[string]any(c))
	return string(b)
}

func (c clusterConfig) controllerManager() map[string]any {
	cm, _ := c["controllerManager"].(map[string]any)
	if cm == nil {
		cm = map[string]any{}
		c["controllerManager"] = cm
	}
	return cm
}

// setArg sets (value != "") or removes (value == "") a controller-manager
// extra argument in either API version's shape.
func (c clusterConfig) setArg(name, value string) {
	cm := c.controllerManager()
	switch args := cm["extraArgs"].(type) {
	case []any: // v1beta4
		var out []any
		for _, a := range args {
			if m, ok := a.(map[string]any); ok && m["name"] == name {
				continue
			}
			out = append(out, a)
		}
		if value != "" {
			out = append(out, map[string]any{"name": name, "value": value})
		}
		cm["extraArgs"] = out
	default: // v1beta3 map, or none yet
		m, _ := args.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		if value == "" {
			delete(m, name)
		} else {
			m[name] = value
		}
		cm["extraArgs"] = m
	}
}

// setArgs sets the user's flags (--name=value) as extra arguments.
func (c clusterConfig) setArgs(args []string) {
	for _, p := range argPairs(args) {
		if p[0] == "feature-gates" {
			p[1] = cmdline.MergeGates(c.arg(p[0]), p[1])
		}
		c.setArg(p[0], p[1])
	}
}

func (c clusterConfig) arg(name string) string {
	switch args := c.controllerManager()["extraArgs"].(type) {
	case []any:
		for _, a := range args {
			if m, ok := a.(map[string]any); ok && m["name"] == name {
				s, _ := m["value"].(string)
				return s
			}
		}
	case map[string]any:
		s, _ := args[name].(string)
		return s
	}
	return ""
}

// setVolume adds (path != "") or removes a controller-manager hostPath file.
func (c clusterConfig) setVolume(name, path string) {
	cm := c.controllerManager()
	vols, _ := cm["extraVolumes"].([]any)
	var out []any
	for _, v := range vols {
		if m, ok := v.(map[string]any); ok && m["name"] == name {
			continue
		}
		out = append(out, v)
	}
	if path != "" {
		out = append(out, map[string]any{"name": name, "hostPath": path, "mountPath": path, "readOnly": true, "pathType": "File"})
	}
	cm["extraVolumes"] = out
}

// toExternal is the version-N+1 ClusterConfiguration: the new version, and
// a kube-controller-manager with no cloud provider and no leader migration.
func (c clusterConfig) toExternal(version string) {
	c["kubernetesVersion"] = version
	for _, a := range []string{"cloud-provider", "cloud-config", "enable-leader-migration", "leader-migration-config"} {
		c.setArg(a, "")
	}
	var gates []string
	for _, g := range strings.Split(c.arg("feature-gates"), ",") {
		if g != "" && !strings.HasPrefix(g, "DisableCloudProviders=") {
			gates = append(gates, g)
		}
	}
	c.setArg("feature-gates", strings.Join(gates, ","))
	c.setVolume("cloud-config", "")
	c.setVolume(lmVolume, "")
}

func (e *Env) readClusterConfig(ctx context.Context) (*corev1.ConfigMap, clusterConfig, error) {
	cm, err := e.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, kubeadmConfigMap, metav1.GetOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("reading kube-system/%s: %w", kubeadmConfigMap, err)
	}
	c, err := parseClusterConfig(cm.Data[clusterConfigKey])
	return cm, c, err
}

func (e *Env) writeClusterConfig(ctx context.Context, cm *corev1.ConfigMap, c clusterConfig) error {
	cm.Data[clusterConfigKey] = c.String()
	_, err := e.Client.CoreV1().ConfigMaps("kube-system").Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("updating kube-system/%s: %w", kubeadmConfigMap, err)
	}
	return nil
}

// saveClusterConfig keeps the version-N configuration once, for rollback.
func (e *Env) saveClusterConfig(ctx context.Context, version, config string) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: savedConfigMap, Namespace: "kube-system"},
		Data: map[string]string{clusterConfigKey + "-" + version: config}}
	_, err := e.Client.CoreV1().ConfigMaps("kube-system").Create(ctx, cm, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		old, err := e.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, savedConfigMap, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if _, ok := old.Data[clusterConfigKey+"-"+version]; ok {
			return nil
		}
		old.Data[clusterConfigKey+"-"+version] = config
		_, err = e.Client.CoreV1().ConfigMaps("kube-system").Update(ctx, old, metav1.UpdateOptions{})
		return err
	}
	return err
}

func (e *Env) savedClusterConfig(ctx context.Context, version string) (clusterConfig, error) {
	cm, err := e.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, savedConfigMap, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("no saved version-%s ClusterConfiguration (kube-system/%s): was the forward migration run by handover? %w", version, savedConfigMap, err)
	}
	s, ok := cm.Data[clusterConfigKey+"-"+version]
	if !ok {
		return nil, fmt.Errorf("kube-system/%s has no %s-%s", savedConfigMap, clusterConfigKey, version)
	}
	return parseClusterConfig(s)
}
