package migrate

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Resolve completes a spec from the live cluster: N and the pod subnet are
// read once, when the procedure first runs, and kept in the cluster (the
// number of control planes changes while the procedure runs), so a resumed
// run builds the same steps.
func Resolve(ctx context.Context, e *Env) (Spec, error) {
	s := e.Spec
	key := "run-" + s.Procedure
	if s.Variant.Rollback {
		key += "-rollback"
	}
	cm, err := e.Client.CoreV1().ConfigMaps("kube-system").Get(ctx, savedConfigMap, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return s, err
	}
	exists := err == nil
	if exists && cm.Data[key] != "" {
		var saved Spec
		if err := json.Unmarshal([]byte(cm.Data[key]), &saved); err != nil {
			return s, fmt.Errorf("kube-system/%s %s: %w", savedConfigMap, key, err)
		}
		s.ControlPlanes, s.PodSubnet = saved.ControlPlanes, saved.PodSubnet
		e.Spec = s
		return s, nil
	}
	cps, err := e.Cluster.ControlPlanes()
	if err != nil {
		return s, err
	}
	s.ControlPlanes = len(cps)
	_, cc, err := e.readClusterConfig(ctx)
	if err != nil {
		return s, err
	}
	if net, ok := cc["networking"].(map[string]any); ok {
		if sub, ok := net["podSubnet"].(string); ok && sub != "" {
			s.PodSubnet = sub
		}
	}
	b, _ := json.Marshal(s)
	if !exists {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: savedConfigMap, Namespace: "kube-system"}, Data: map[string]string{}}
		cm.Data[key] = string(b)
		_, err = e.Client.CoreV1().ConfigMaps("kube-system").Create(ctx, cm, metav1.CreateOptions{})
	} else {
		if cm.Data == nil {
			cm.Data = map[string]string{}
		}
		cm.Data[key] = string(b)
		_, err = e.Client.CoreV1().ConfigMaps("kube-system").Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		return s, fmt.Errorf("recording the run in kube-system/%s: %w", savedConfigMap, err)
	}
	e.Spec = s
	return s, nil
}
