package simulated

import (
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// Manager is the simulated cloud's manager as the procedures place it.
func (Provider) Manager() providers.Manager {
	return cloudcluster.KubeadmManager(cloudcluster.ManagerSide{CloudProvider: cloudcluster.ProviderName, CloudConfigPath: cloudcluster.CloudConfigPath,
		CCMCloudConfigPath: cloudcluster.CloudConfigPath, WorkloadName: "cloud-controller-manager", Forms: forms{}})
}

// forms are the simulated manager's forms.
type forms struct{}

func (forms) Image(version string) string { return nodeimage.CCMImage(version) }

func (forms) Kubeconfig(conf, caCert, caKey []byte) (string, error) {
	return cloudcluster.CCMKubeconfig(conf, caCert, caKey)
}

func (forms) StaticPod(in providers.StaticPodInput) string {
	return cloudcluster.CCMStaticPod(in.Version, in.Cluster, in.PodSubnet, in.Args, cloudcluster.HostFiles(in.Files)...)
}

func (forms) Workload(in providers.WorkloadInput) string {
	if in.Config == "" {
		return cloudcluster.CCMManifest(in.Form, in.Replicas, in.Version, in.Cluster, in.PodSubnet, in.Args...)
	}
	return cloudcluster.CCMManifestWithConfig(in.Form, in.Replicas, in.Version, in.Cluster, in.PodSubnet, in.Config, in.ConfigPath, in.Args...)
}

// ProviderPackage is the simulated cloud's Kubernetes provider.
const ProviderPackage = "github.com/handover-sh/handover/simulate/cloudprovider/provider"

// InTreeCode and CCMCode: handover builds the simulated provider into
// every version's managers and kubelets.
func (Provider) InTreeCode(string) string { return ProviderPackage }
func (Provider) CCMCode(string) string    { return ProviderPackage }

// The cloud's registry: external kubelets pull through its plugin.
func (Provider) KubeletCredentialFlags(version string) map[string]string {
	return imageCredentials(version)
}
func (Provider) RegistryImage() string { return echoImage }

// NodeManager: the manager's own cloud-node controller initialises Nodes.
func (forms) NodeManager(string) string { return "" }
