package azure

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/internal/modsource"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// rendered is the chart's objects for v1.30.14, by kind.
func rendered(t *testing.T, in providers.WorkloadInput) map[string][]string {
	t.Helper()
	m := forms{}.Workload(in)
	if m == "" {
		t.Fatalf("no chart for %+v", in)
	}
	out := map[string][]string{}
	for _, doc := range strings.Split(m, "\n---\n") {
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil || head.APIVersion == "" || head.Kind == "" {
			t.Fatalf("a document without apiVersion and kind (%v):\n%s", err, doc)
		}
		out[head.Kind] = append(out[head.Kind], doc)
	}
	return out
}

func decode[T any](t *testing.T, doc string) T {
	t.Helper()
	var v T
	if err := yaml.UnmarshalStrict([]byte(doc), &v); err != nil {
		t.Fatalf("%v:\n%s", err, doc)
	}
	return v
}

// TestChartRendersInEachForm: the chart's manager as a Deployment of the
// replicas asked (or a DaemonSet), the node manager's DaemonSet beside it,
// both of the release's images, and a leader-migration configuration
// mounted when one is given.
func TestChartRendersInEachForm(t *testing.T) {
	in := providers.WorkloadInput{Form: cloudcluster.Deployment, Replicas: 3, Version: "v1.30.14", Cluster: "c", PodSubnet: "10.244.0.0/16"}
	objs := rendered(t, in)
	d := decode[appsv1.Deployment](t, objs["Deployment"][0])
	if *d.Spec.Replicas != 3 || d.Name != CCMName {
		t.Errorf("the manager: %s with %d replicas", d.Name, *d.Spec.Replicas)
	}
	c := d.Spec.Template.Spec.Containers[0]
	if c.Image != "mcr.microsoft.com/oss/kubernetes/azure-cloud-controller-manager:v1.30.4" || !slices.Contains(c.Args, "--cloud-config="+CCMCloudConfigPath) ||
		!slices.Contains(c.Args, "--cluster-name=c") || !slices.Contains(c.Args, "--cluster-cidr=10.244.0.0/16") {
		t.Errorf("the manager's container: %s %v", c.Image, c.Args)
	}
	if len(objs["DaemonSet"]) != 1 || !strings.Contains(objs["DaemonSet"][0], "image: mcr.microsoft.com/oss/kubernetes/azure-cloud-node-manager:v1.30.4") {
		t.Errorf("the node manager: %v", objs["DaemonSet"])
	}
	in.Form, in.Config, in.ConfigPath, in.Args = cloudcluster.DaemonSet, "kind: LeaderMigrationConfiguration\n", "/etc/lm.yaml", []string{"--enable-leader-migration"}
	objs = rendered(t, in)
	if len(objs["DaemonSet"]) != 2 || len(objs["Deployment"]) != 0 || len(objs["ConfigMap"]) != 1 {
		t.Fatalf("as a DaemonSet with a configuration: %d DaemonSets, %d Deployments, %d ConfigMaps", len(objs["DaemonSet"]), len(objs["Deployment"]), len(objs["ConfigMap"]))
	}
	ds := decode[appsv1.DaemonSet](t, objs["DaemonSet"][0])
	c = ds.Spec.Template.Spec.Containers[0]
	if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/etc/lm.yaml" }) || !slices.Contains(c.Args, "--enable-leader-migration") {
		t.Errorf("the configuration is not mounted or the flag not passed: %v %v", c.VolumeMounts, c.Args)
	}
	if (forms{}).Workload(providers.WorkloadInput{Form: cloudcluster.Deployment, Version: "v1.31.4"}) != "" {
		t.Error("a chart for a version handover builds no cloud-provider-azure for")
	}
}

// chartValues are the values of cloud-provider-azure's chart
// (helm/cloud-provider-azure/values.yaml) the rendered objects take.
type chartValues struct {
	CloudControllerManager struct {
		ImagePullPolicy             corev1.PullPolicy   `json:"imagePullPolicy"`
		RouteReconciliationPeriod   string              `json:"routeReconciliationPeriod"`
		SecurePort                  int                 `json:"securePort"`
		Tolerations                 []corev1.Toleration `json:"tolerations"`
		NodeSelector                map[string]string   `json:"nodeSelector"`
		ContainerResourceManagement resources           `json:"containerResourceManagement"`
	} `json:"cloudControllerManager"`
	CloudNodeManager struct {
		ImagePullPolicy             corev1.PullPolicy `json:"imagePullPolicy"`
		ContainerResourceManagement resources         `json:"containerResourceManagement"`
	} `json:"cloudNodeManager"`
}

type resources struct {
	RequestsCPU string `json:"requestsCPU"`
	RequestsMem string `json:"requestsMem"`
	LimitsCPU   string `json:"limitsCPU"`
	LimitsMem   string `json:"limitsMem"`
}

func (r resources) of() corev1.ResourceRequirements {
	q := resource.MustParse
	return corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: q(r.RequestsCPU), corev1.ResourceMemory: q(r.RequestsMem)},
		Limits: corev1.ResourceList{corev1.ResourceCPU: q(r.LimitsCPU), corev1.ResourceMemory: q(r.LimitsMem)}}
}

// TestChartHoldsInItsSource holds the rendered chart to the chart of the
// release handover builds: values.yaml's defaults (pull policy, route
// period, secure port, tolerations, node selector, resources) and the
// template's fixed arguments, commands and probes.
func TestChartHoldsInItsSource(t *testing.T) {
	c, err := releaseOf("v1.30.14")
	if err != nil {
		t.Fatal(err)
	}
	dir := modsource.Dir(t, "sigs.k8s.io/cloud-provider-azure@"+c.Version)
	values, ok := modsource.Text(t, dir, "helm/cloud-provider-azure/values.yaml")
	tmpl, ok2 := modsource.Text(t, dir, "helm/cloud-provider-azure/templates/cloud-provider-azure.yaml")
	if !ok || !ok2 {
		t.Fatalf("%s has no chart", c.Version)
	}
	var v chartValues
	if err := yaml.Unmarshal([]byte(values), &v); err != nil {
		t.Fatal(err)
	}
	objs := rendered(t, providers.WorkloadInput{Form: cloudcluster.Deployment, Replicas: 1, Version: "v1.30.14", Cluster: "c", PodSubnet: "10.244.0.0/16"})
	d := decode[appsv1.Deployment](t, objs["Deployment"][0])
	ccm := d.Spec.Template.Spec.Containers[0]
	vc := v.CloudControllerManager
	if ccm.ImagePullPolicy != vc.ImagePullPolicy || !reflect.DeepEqual(d.Spec.Template.Spec.Tolerations, vc.Tolerations) ||
		!reflect.DeepEqual(d.Spec.Template.Spec.NodeSelector, vc.NodeSelector) || !reflect.DeepEqual(ccm.Resources, vc.ContainerResourceManagement.of()) {
		t.Errorf("the manager's Deployment is not the chart's: %+v", d.Spec.Template.Spec)
	}
	// securePort is set (the observers' port, not values.yaml's), and the
	// chart's probe follows it as its template does.
	if p := strconv.Itoa(ccm.LivenessProbe.HTTPGet.Port.IntValue()); p != securePort || !slices.Contains(ccm.Args, "--secure-port="+securePort) ||
		!strings.Contains(tmpl, "port: {{ .Values.cloudControllerManager.securePort }}") || vc.SecurePort == 0 {
		t.Errorf("the manager's secure port %s, probe %s; values.yaml's %d", securePort, p, vc.SecurePort)
	}
	for _, a := range []string{"--route-reconciliation-period=" + vc.RouteReconciliationPeriod} {
		if !slices.Contains(ccm.Args, a) {
			t.Errorf("the manager lacks the chart's %s: %v", a, ccm.Args)
		}
	}
	for _, fixed := range []string{`"--controllers=*,-cloud-node"`, `"--cloud-provider=azure"`, `command: ["cloud-controller-manager"]`,
		`command: ["cloud-node-manager"]`, `- --node-name=$(NODE_NAME)`, `hostNetwork: true`, `audience: api://AzureADTokenExchange`} {
		if !strings.Contains(tmpl, fixed) {
			t.Errorf("the chart's template has no %s", fixed)
		}
	}
	if !slices.Contains(ccm.Args, "--controllers=*,-cloud-node") || !slices.Contains(ccm.Args, "--cloud-provider=azure") || ccm.Command[0] != "cloud-controller-manager" {
		t.Errorf("the manager's command: %v %v", ccm.Command, ccm.Args)
	}
	cnm := decode[appsv1.DaemonSet](t, objs["DaemonSet"][0]).Spec.Template.Spec.Containers[0]
	if cnm.ImagePullPolicy != v.CloudNodeManager.ImagePullPolicy || !reflect.DeepEqual(cnm.Resources, v.CloudNodeManager.ContainerResourceManagement.of()) ||
		cnm.Command[0] != "cloud-node-manager" {
		t.Errorf("the node manager's DaemonSet is not the chart's: %+v", cnm)
	}
}
