package azure

import (
	"path/filepath"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudserver/registry"
)

// An azure cluster's registry is ACR's: the kubelets pull from it through
// Azure's own credential code, which asks the metadata service for the
// node's token and exchanges it at the registry (relayed to the cloud).
// The 1.29 kubelets do so in tree (Kubernetes v1.29.15 pkg/
// credentialprovider/azure, enabled by --azure-container-registry-config
// with DisableKubeletCloudCredentialProviders off); from 1.30 the kubelet
// has no such code (the package is gone from v1.30.14) and pulls only
// through cloud-provider-azure's acr-credential-provider plugin.

// RegistryHost is the cluster's ACR login server. Both providers find a
// registry only under ACR's public suffixes (acrRE in both copies of
// azure_credentials.go; an environment read from resourceManagerEndpoint
// has no registry suffix of its own: go-autorest's EnvironmentFromURL
// sets none), so the name is ACR's form; the cloud's CA may sign it and
// no other name outside handover.invalid.
const RegistryHost = "handoverrehearsal.azurecr.io"

// echoImage is the echo image as pods pull it from the cluster's ACR.
var echoImage = RegistryHost + "/" + nodeimage.EchoRepository

// acrCredentialProvider is the plugin's name: its binary's
// (examples/out-of-tree/credential-provider-config.yaml).
const acrCredentialProvider = "acr-credential-provider"

// credentialProviderConfigPath is the kubelets' CredentialProviderConfig
// on every node.
const credentialProviderConfigPath = nodeDir + "/credential-provider.yaml"

// acrMatchImages are the plugin's images, as the release's example
// configuration lists them.
var acrMatchImages = []string{"*.azurecr.io", "*.azurecr.cn", "*.azurecr.de", "*.azurecr.us"}

// credentialProviderConfig is the release's example configuration
// (cloud-provider-azure v1.30.4 examples/out-of-tree/
// credential-provider-config.yaml), its azure.json the node's.
func credentialProviderConfig() string {
	return cloudcluster.CredentialProviderConfig(cloudcluster.CredentialPlugin{Name: acrCredentialProvider, MatchImages: acrMatchImages,
		DefaultCacheDuration: "10m", Args: []string{CloudConfigPath}})
}

// imageCredentials are the flags that let a kubelet of version pull from
// the cluster's ACR: the plugin's where handover builds a release with
// one, else the in-tree provider's.
func imageCredentials(version string) map[string]string {
	if c, err := releaseOf(version); err == nil && c.CredentialProvider != "" {
		return map[string]string{
			"image-credential-provider-config":  credentialProviderConfigPath,
			"image-credential-provider-bin-dir": nodeimage.CredentialProviderDir,
		}
	}
	return map[string]string{"azure-container-registry-config": CloudConfigPath}
}

// KubeletCredentialFlags: see imageCredentials.
func (Provider) KubeletCredentialFlags(version string) map[string]string {
	return imageCredentials(version)
}

// RegistryImage is the echo image in the cluster's ACR.
func (Provider) RegistryImage() string { return echoImage }

// theRegistry is the cluster's ACR as its container serves it: its token
// exchange relayed to ARM.
func theRegistry(cluster string, e endpoints) cloudcluster.Registry {
	return cloudcluster.Registry{Host: RegistryHost, Upstream: e.arm(), Scheme: registry.SchemeACR, StateDir: stateDir(cluster)}
}

// registryMounts are containerd's files for the registry and the plugin
// of the first on-demand build that has one (one release has today), on
// every node: a 1.29 kubelet leaves it unused.
func registryMounts(cluster string) []v1alpha4.Mount {
	reg := cloudcluster.Registry{Host: RegistryHost, StateDir: stateDir(cluster)}
	out := []v1alpha4.Mount{{HostPath: filepath.Join(reg.StateDir, cloudcluster.RegistryCertsSubdir), ContainerPath: reg.CertsDir(), Readonly: true}}
	for _, b := range onDemandBuilds() {
		if b.CredentialProvider != "" {
			out = append(out, v1alpha4.Mount{HostPath: b.CredentialProvider, ContainerPath: nodeimage.CredentialProviderDir + "/" + acrCredentialProvider, Readonly: true})
			break
		}
	}
	return out
}
