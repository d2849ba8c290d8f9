package aws_test

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/aws"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

func manager(t *testing.T) providers.Manager {
	t.Helper()
	p, err := providers.Lookup(aws.Name)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := providers.As[providers.Managed](p)
	if !ok {
		t.Fatal("the aws provider places no manager")
	}
	return m.Manager()
}

// The aws provider fills every part a procedure may ask for; its static
// pod runs the aws binary with its key's file, its workloads mount a
// leader-migration configuration and run as a Deployment when asked.
func TestAWSProviderIsComplete(t *testing.T) {
	m := manager(t)
	v := reflect.ValueOf(m)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("the aws provider leaves %s unset", v.Type().Field(i).Name)
		}
	}
	pod := m.Forms.StaticPod(providers.StaticPodInput{Version: "v1.27.4", Cluster: "c", PodSubnet: "10.244.0.0/16",
		Args: []string{"--enable-leader-migration"}, Files: map[string]string{"leadermigration": "/etc/leadermigration.conf"}})
	var sp corev1.Pod
	if err := yaml.Unmarshal([]byte(pod), &sp); err != nil {
		t.Fatal(err)
	}
	ct := sp.Spec.Containers[0]
	if ct.Command[0] != "/bin/aws-cloud-controller-manager" || !slices.Contains(ct.Command, "--enable-leader-migration") || !slices.Contains(ct.Command, "--cloud-provider=aws") ||
		len(ct.Env) != 1 || ct.Env[0].Value != "/etc/kubernetes/aws/cloud-controller-manager.credentials" || len(sp.Spec.Volumes) != 4 {
		t.Errorf("static pod:\n%s", pod)
	}
	if m.Forms.Image("v1.30.14") != "" || m.Forms.Image("v1.27.4") == "" {
		t.Errorf("images: %q %q", m.Forms.Image("v1.30.14"), m.Forms.Image("v1.27.4"))
	}
	d := m.Forms.Workload(providers.WorkloadInput{Form: cloudcluster.Deployment, Replicas: 3, Version: "v1.27.4", Cluster: "c", PodSubnet: "10.244.0.0/16",
		Config: "kind: LeaderMigrationConfiguration\n", ConfigPath: "/etc/lm.conf"})
	for _, want := range []string{"kind: Deployment\n", "replicas: 3\n", "mountPath: /etc/lm.conf", "name: " + m.LeaderMigrationConfigMap, "k8s-app: " + m.CCMWorkloadName + "\n            topologyKey"} {
		if !strings.Contains(d, want) {
			t.Errorf("the Deployment lacks %q:\n%s", want, d)
		}
	}
}

// The code the reports name is the code the node images build: the in-tree
// aws provider at the legacy-cloud-providers the release's modules pin, and
// the cloud-provider-aws release its image carries; none in tree from 1.27.
func TestAWSProviderCode(t *testing.T) {
	for file, pin := range map[string]string{
		"kubernetes-v1.26/go.mod":           "k8s.io/legacy-cloud-providers => k8s.io/legacy-cloud-providers v0.26.13",
		"cloud-provider-aws-v1.27.2/go.mod": "k8s.io/cloud-provider-aws v1.27.2",
	} {
		raw, err := os.ReadFile("../../clusters/nodeimage/modules/" + file)
		if err != nil || !strings.Contains(string(raw), pin) {
			t.Errorf("%s does not pin %q: %v", file, pin, err)
		}
	}
	p := aws.Provider{}
	if got := p.InTreeCode("v1.26.13"); got != "k8s.io/legacy-cloud-providers/aws@v0.26.13" {
		t.Errorf("in tree at v1.26.13: %q", got)
	}
	if got := p.InTreeCode("v1.27.4"); got != "" {
		t.Errorf("in tree at v1.27.4: %q", got)
	}
	if got := p.CCMCode("v1.27.4"); got != "k8s.io/cloud-provider-aws@v1.27.2" || p.API() != aws.Name {
		t.Errorf("the v1.27.4 manager: %q, api %q", got, p.API())
	}
}
