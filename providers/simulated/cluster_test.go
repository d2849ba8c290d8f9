package simulated

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// A cluster's cloud serves its registry, which the cloud-config names for
// the plugin; every file a node mounts is written before kind starts it
// (the engine would make a missing one a directory).
func TestPrepareServesTheRegistry(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", t.TempDir())
	served, err := Provider{}.Prepare(context.Background(), cloudcluster.PrepareInput{Cluster: "c1", Gateway: "172.18.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if served.ConfigRegistry != RegistryHost || served.Registry.Host != RegistryHost || served.Metadata != "" {
		t.Errorf("served %+v", served)
	}
	if i := slices.Index(served.Flags, "--registry"); i < 0 || served.Flags[i+1] != RegistryHost || !slices.Contains(served.Flags, "--registry-token-key") {
		t.Errorf("serve flags %v", served.Flags)
	}
	for _, role := range []v1alpha4.NodeRole{v1alpha4.ControlPlaneRole, v1alpha4.WorkerRole} {
		for _, m := range (Provider{}).NodeMounts("c1", "c1-"+string(role), role) {
			if _, err := os.Stat(m.HostPath); err != nil || !m.Readonly {
				t.Errorf("a %s mounts %s (read-only: %v): %v", role, m.HostPath, m.Readonly, err)
			}
		}
	}
}

// In-tree, the kube-controller-manager and the kubelets run the simulated
// provider with the cloud's configuration; external, the kubelets are
// external and pull through the plugin, and the manager is the workload
// asked for.
func TestKubeadmPatchesFollowTheMode(t *testing.T) {
	in := cloudcluster.ClusterInput{Topology: topology.Topology{Name: "c1", Kubernetes: "v1.30.14", ControlPlanes: 3}, Mode: cloudcluster.InTree, Workload: cloudcluster.Deployment}
	inTree := strings.Join(Provider{}.KubeadmPatches(in), "\n---\n")
	for _, want := range []string{"cloud-provider: " + cloudcluster.ProviderName, "cloud-config: " + cloudcluster.CloudConfigPath, "cluster-name: c1", "DisableKubeletCloudCredentialProviders: false"} {
		if !strings.Contains(inTree, want) {
			t.Errorf("in-tree patches lack %q:\n%s", want, inTree)
		}
	}
	if m, err := (Provider{}).Manifests(in); err != nil || len(m) != 0 {
		t.Errorf("in-tree manifests %d (%v)", len(m), err)
	}
	in.Mode = cloudcluster.External
	external := strings.Join(Provider{}.KubeadmPatches(in), "\n---\n")
	if !strings.Contains(external, "cloud-provider: external") || !strings.Contains(external, "image-credential-provider-config: "+credentialProviderConfigPath) || strings.Contains(external, "controllerManager") {
		t.Errorf("external patches:\n%s", external)
	}
	m, err := Provider{}.Manifests(in)
	if err != nil || len(m) != 1 || !strings.Contains(m[0], "kind: Deployment\n") || !strings.Contains(m[0], "replicas: 3\n") {
		t.Errorf("external manifests (%v): %v", err, m)
	}
}
