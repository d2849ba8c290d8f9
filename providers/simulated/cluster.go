package simulated

import (
	"context"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// A cluster on the simulated cloud runs the simulated provider that every
// node image's managers and kubelets have compiled in: in-tree, the
// kube-controller-manager's cloud loops and the kubelets set their own
// ProviderIDs; external, a cloud-controller-manager runs the loops. Its
// nodes pull from the cloud's registry through the credential plugin
// every node image carries.

var _ cloudcluster.Cloud = Provider{}

// Validate: every mode and version cloudcluster.Validate lets through.
func (Provider) Validate(cloudcluster.ClusterInput) error { return nil }

// Prepare writes the cloud's registry files and the plugin's
// configuration; the cloud-config names the registry for the plugin.
func (Provider) Prepare(_ context.Context, in cloudcluster.PrepareInput) (cloudcluster.Served, error) {
	flags, err := prepareRegistry(in.Cluster)
	if err != nil {
		return cloudcluster.Served{}, err
	}
	if err := writeCredentialProviderConfig(in.Cluster); err != nil {
		return cloudcluster.Served{}, err
	}
	return cloudcluster.Served{Flags: flags, ConfigRegistry: RegistryHost, Registry: registry(in.Cluster)}, nil
}

// NodeMounts are the files of the cloud's registry, the same on every
// node.
func (Provider) NodeMounts(cluster, _ string, _ v1alpha4.NodeRole) []v1alpha4.Mount {
	return nodeMounts(cluster)
}

// KubeadmPatches point the kubelets and, in-tree, the
// kube-controller-manager at the simulated provider.
func (Provider) KubeadmPatches(in cloudcluster.ClusterInput) []string {
	if in.Mode == cloudcluster.External {
		// The CCM sets ProviderIDs; until it has, new nodes carry the
		// node.cloudprovider.kubernetes.io/uninitialized taint. Images of
		// the cloud's registry come through the plugin.
		kubelet := "\n  kubeletExtraArgs:\n    cloud-provider: external\n    provider-id: \"\""
		kubelet += cloudcluster.KubeletArgLines(imageCredentials(in.Topology.Kubernetes))
		return []string{"kind: InitConfiguration\nnodeRegistration:" + kubelet, "kind: JoinConfiguration\nnodeRegistration:" + kubelet}
	}
	kubelet := `
  kubeletExtraArgs:
    cloud-provider: ` + cloudcluster.ProviderName + `
    cloud-config: ` + cloudcluster.CloudConfigPath + `
    provider-id: ""`
	return []string{cloudcluster.InTreeKCM{Provider: cloudcluster.ProviderName, CloudConfig: cloudcluster.CloudConfigPath, Cluster: in.Topology.Name, GateBack: true}.Patch(),
		"kind: InitConfiguration\nnodeRegistration:" + kubelet,
		"kind: JoinConfiguration\nnodeRegistration:" + kubelet,
		cloudcluster.InTreeKubeletGates}
}

// Manifests: in external mode, the cloud-controller-manager as the
// workload asked, one replica per control plane.
func (Provider) Manifests(in cloudcluster.ClusterInput) ([]string, error) {
	if in.Mode != cloudcluster.External {
		return nil, nil
	}
	t := in.Topology
	return []string{cloudcluster.CCMManifest(in.Workload, t.ControlPlanes, t.Kubernetes, t.Name, t.PodSubnet)}, nil
}

// A node's files are the cluster's: nothing is a node's own.
func (Provider) NodeJoins(string, string) error { return nil }
func (Provider) NodeGone(string, string) error  { return nil }
