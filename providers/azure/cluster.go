package azure

import (
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// An azure cluster's cloud also answers as Azure Resource Manager and the
// instance metadata service (simulate/cloudserver/azure), and its kubelets
// and managers run the azure provider's own code against it: pointed there
// by azure.json (resourceManagerEndpoint), trusting the cloud's CA, with
// tokens from the managed identities the metadata service issues. Nodes
// keep kind's names, which are their VMs' names.

var _ cloudcluster.Cloud = Provider{}

// Validate refuses a cluster the azure provider's code cannot run in:
// in-tree needs a Kubernetes that still builds the azure provider (its
// profile says which), external a cloud-provider-azure release handover
// builds for the version, built.
func (Provider) Validate(in cloudcluster.ClusterInput) error {
	if judged, err := cloudcluster.ValidateInTree(Name, in, azureOutOfTreeSince, "v1.29.15"); judged {
		return err
	}
	_, err := nodeimage.FindOnDemand(nodeimage.DefaultCacheDir(), in.Topology.Kubernetes, Name)
	return err
}

// KubeadmPatches point the kubelets and (in-tree) the
// kube-controller-manager at the azure provider. Kubernetes 1.29 turned
// the in-tree providers off by default (DisableCloudProviders, beta):
// Rancher's clusters turn them back on until the migration.
func (Provider) KubeadmPatches(in cloudcluster.ClusterInput) []string {
	// Every kubelet pulls from the cluster's ACR as its version can.
	credentials := cloudcluster.KubeletArgLines(imageCredentials(in.Topology.Kubernetes))
	if in.Mode != cloudcluster.InTree {
		kubelet := "\n  kubeletExtraArgs:\n    cloud-provider: external" + credentials + "\n    provider-id: \"\""
		return []string{"kind: InitConfiguration\nnodeRegistration:" + kubelet, "kind: JoinConfiguration\nnodeRegistration:" + kubelet}
	}
	kubelet := "\n  kubeletExtraArgs:\n    cloud-provider: " + Name + "\n    cloud-config: " + CloudConfigPath + credentials + "\n    provider-id: \"\""
	return []string{cloudcluster.InTreeKCM{Provider: Name, CloudConfig: kcmCloudConfigPath, Cluster: in.Topology.Name, Routes: true, GateBack: true}.Patch(),
		"kind: InitConfiguration\nnodeRegistration:" + kubelet,
		"kind: JoinConfiguration\nnodeRegistration:" + kubelet,
		cloudcluster.InTreeKubeletGates}
}

// Manifests: in external mode, the chart's managers (the workload's form
// as asked: the chart's is a Deployment).
func (Provider) Manifests(in cloudcluster.ClusterInput) ([]string, error) {
	if in.Mode != cloudcluster.External {
		return nil, nil
	}
	t := in.Topology
	m, err := chartManifest(chartInput{form: in.Workload, replicas: t.ControlPlanes, version: t.Kubernetes, cluster: t.Name, podSubnet: t.PodSubnet})
	if err != nil {
		return nil, err
	}
	return []string{m}, nil
}
