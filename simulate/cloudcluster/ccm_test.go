package cloudcluster

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

type workloadDoc struct {
	Kind string
	Spec struct {
		Replicas *int
		Template struct {
			Spec struct {
				Affinity   any
				Containers []struct {
					Image   string
					Command []string
				}
			}
		}
	}
}

func lastDoc(t *testing.T, m string) workloadDoc {
	t.Helper()
	docs := strings.Split(m, "\n---\n")
	var w workloadDoc
	if err := yaml.Unmarshal([]byte(docs[len(docs)-1]), &w); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestCCMManifest(t *testing.T) {
	ds := lastDoc(t, CCMManifest(DaemonSet, 0, "v1.30.14", "c", "10.244.0.0/16", "--enable-leader-migration"))
	cmd := strings.Join(ds.Spec.Template.Spec.Containers[0].Command, " ")
	if ds.Kind != "DaemonSet" || ds.Spec.Replicas != nil || ds.Spec.Template.Spec.Affinity != nil {
		t.Fatalf("daemonset: %+v", ds)
	}
	for _, want := range []string{"--cloud-provider=kind", "--cluster-name=c", "--cluster-cidr=10.244.0.0/16", "--configure-cloud-routes=true", "--enable-leader-migration"} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command lacks %s: %s", want, cmd)
		}
	}
	if ds.Spec.Template.Spec.Containers[0].Image != "handover.local/cloud-controller-manager:v1.30.14" {
		t.Errorf("image %s", ds.Spec.Template.Spec.Containers[0].Image)
	}
	dep := lastDoc(t, CCMManifest(Deployment, 3, "v1.31.4", "c", "10.244.0.0/16"))
	if dep.Kind != "Deployment" || dep.Spec.Replicas == nil || *dep.Spec.Replicas != 3 || dep.Spec.Template.Spec.Affinity == nil {
		t.Fatalf("deployment: %+v", dep)
	}
}
