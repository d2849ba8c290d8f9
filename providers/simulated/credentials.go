package simulated

import (
	"path/filepath"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// On the simulated cloud, every kubelet of an in-tree cluster pulls from
// the cloud's registry through the in-tree provider its kubelet main
// registers (clusters/nodeimage/modules/*/kubelet/credentials.go), with
// DisableKubeletCloudCredentialProviders off as it must be from 1.29;
// external kubelets through handover-credential-provider, in every node
// image.

// credentialProviderConfigPath is the kubelet's CredentialProviderConfig
// on every node of a cluster on the simulated cloud.
const credentialProviderConfigPath = "/etc/kubernetes/credential-provider.yaml"

// credentialProviderFile is that configuration in the cloud's state dir.
const credentialProviderFile = "credential-provider.yaml"

// imageCredentials are the kubelet flags of the plugin: any kubelet
// from 1.26 takes them (the plugin API is v1 there).
func imageCredentials(string) map[string]string {
	return map[string]string{
		"image-credential-provider-config":  credentialProviderConfigPath,
		"image-credential-provider-bin-dir": nodeimage.CredentialProviderDir,
	}
}

// credentialProviderYAML is the plugin's entry: the cloud's registry
// only, the cloud configuration every node has.
func credentialProviderYAML() string {
	return cloudcluster.CredentialProviderConfig(cloudcluster.CredentialPlugin{Name: nodeimage.SimCredentialProvider, MatchImages: []string{RegistryHost},
		DefaultCacheDuration: "0", Args: []string{"--cloud-config=" + cloudcluster.CloudConfigPath}})
}

func writeCredentialProviderConfig(cluster string) error {
	return privatefs.WriteFile(filepath.Join(cloudcluster.StateDir(cluster), credentialProviderFile), []byte(credentialProviderYAML()))
}

// nodeMounts are the files of the cloud's registry on every node.
func nodeMounts(cluster string) []v1alpha4.Mount {
	reg := registry(cluster)
	return []v1alpha4.Mount{
		{HostPath: filepath.Join(reg.StateDir, cloudcluster.RegistryCertsSubdir), ContainerPath: reg.CertsDir(), Readonly: true},
		{HostPath: filepath.Join(cloudcluster.StateDir(cluster), credentialProviderFile), ContainerPath: credentialProviderConfigPath, Readonly: true},
	}
}
