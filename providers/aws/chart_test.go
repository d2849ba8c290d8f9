package aws

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/modsource"
)

// chartValues are the values of cloud-provider-aws's chart
// (charts/aws-cloud-controller-manager/values.yaml) that handover's
// manifest imitates.
type chartValues struct {
	Args               []string                    `json:"args"`
	NameOverride       string                      `json:"nameOverride"`
	NodeSelector       map[string]string           `json:"nodeSelector"`
	ClusterRoleRules   []rbacv1.PolicyRule         `json:"clusterRoleRules"`
	Tolerations        []corev1.Toleration         `json:"tolerations"`
	DNSPolicy          corev1.DNSPolicy            `json:"dnsPolicy"`
	Resources          corev1.ResourceRequirements `json:"resources"`
	ClusterRoleName    string                      `json:"clusterRoleName"`
	RoleBindingName    string                      `json:"roleBindingName"`
	ServiceAccountName string                      `json:"serviceAccountName"`
	RoleName           string                      `json:"roleName"`
}

const chartDir = "charts/aws-cloud-controller-manager"

// TestAWSChartHoldsInItsSource holds the manifest handover deploys for
// cloud-provider-aws's manager to the chart of every release a node image
// carries: name, tolerations, node selector, DNS policy, priority class,
// service account, requests, the ClusterRole's rules and the bindings, and
// the chart's arguments among the manager's.
func TestAWSChartHoldsInItsSource(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range nodeimage.Releases {
		for _, c := range r.ProviderCCMs {
			if c.Provider != Name || seen[c.Version] {
				continue
			}
			seen[c.Version] = true
			t.Run(c.Version, func(t *testing.T) { holdChart(t, r.Kubernetes, "k8s.io/cloud-provider-aws@"+c.Version) })
		}
	}
}

func holdChart(t *testing.T, version, module string) {
	dir := modsource.Dir(t, module)
	raw, ok := modsource.Text(t, dir, filepath.ToSlash(filepath.Join(chartDir, "values.yaml")))
	if !ok {
		t.Fatalf("%s has no %s/values.yaml", module, chartDir)
	}
	var v chartValues
	if err := yaml.Unmarshal([]byte(raw), &v); err != nil {
		t.Fatal(err)
	}
	tpl, _ := modsource.Text(t, dir, chartDir+"/templates/daemonset.yaml")
	for _, want := range []string{"priorityClassName: system-node-critical", "{{- if .Values.hostNetworking }}\n      hostNetwork: true"} {
		if !strings.Contains(tpl, want) {
			t.Errorf("%s's DaemonSet template no longer has %q", module, want)
		}
	}
	objs := map[string][]byte{}
	for _, doc := range strings.Split(chartManifest(version, "c", "10.244.0.0/16"), "\n---\n") {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		objs[meta.Kind] = []byte(doc)
	}
	var ds appsv1.DaemonSet
	var role rbacv1.ClusterRole
	var rb rbacv1.RoleBinding
	for kind, into := range map[string]any{"DaemonSet": &ds, "ClusterRole": &role, "RoleBinding": &rb} {
		if err := yaml.UnmarshalStrict(objs[kind], into); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
	}
	pod, ct := ds.Spec.Template.Spec, ds.Spec.Template.Spec.Containers[0]
	for what, pair := range map[string][2]any{
		"name":              {ds.Name, v.NameOverride},
		"tolerations":       {pod.Tolerations, v.Tolerations},
		"node selector":     {pod.NodeSelector, v.NodeSelector},
		"DNS policy":        {pod.DNSPolicy, v.DNSPolicy},
		"service account":   {pod.ServiceAccountName, v.ServiceAccountName},
		"requests":          {ct.Resources.Requests.Cpu().String(), v.Resources.Requests.Cpu().String()},
		"ClusterRole":       {role.Name, v.ClusterRoleName},
		"ClusterRole rules": {role.Rules, v.ClusterRoleRules},
		"RoleBinding":       {rb.Name, v.RoleBindingName},
		"RoleBinding role":  {rb.RoleRef.Name, v.RoleName},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s: handover's %v, the chart's (%s) %v", what, pair[0], module, pair[1])
		}
	}
	for _, a := range v.Args {
		if !slices.Contains(ct.Args, a) {
			t.Errorf("the chart's argument %s is not the manager's: %v", a, ct.Args)
		}
	}
}
