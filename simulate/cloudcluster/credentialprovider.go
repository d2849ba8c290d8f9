package cloudcluster

import (
	"path/filepath"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/providers"
)

// A kubelet from 1.27 on has no in-tree ECR provider: it pulls from ECR
// only through ecr-credential-provider, configured as the kubelet's
// --image-credential-provider-config documents and as cloud-provider-aws
// v1.27.2 docs/credential_provider.md gives the provider's entry.

// awsCredentialProviderConfig is the kubelet's CredentialProviderConfig
// on a node whose image carries ecr-credential-provider.
const awsCredentialProviderConfig = awsNodeDir + "/credential-provider.yaml"

// ecrMatchImages are the images the plugin is asked for: its docs' globs.
var ecrMatchImages = []string{"*.dkr.ecr.*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com.cn"}

// awsImageCredentials: the flags of a version's ecr-credential-provider,
// when its node image has one. Its configuration is on every node of an
// aws cluster from the start (mounted: a kubelet started before a file it
// names exists would not start).
func awsImageCredentials(version string) map[string]string {
	r, err := nodeimage.Lookup(version)
	if err != nil {
		return nil
	}
	for _, p := range r.ProviderCCMs {
		if p.Provider == providers.AWS && p.CredentialProvider != "" {
			return map[string]string{
				"image-credential-provider-config":  awsCredentialProviderConfig,
				"image-credential-provider-bin-dir": nodeimage.CredentialProviderDir,
			}
		}
	}
	return nil
}

// ecrCredentialProvider is the plugin's name: its binary's.
const ecrCredentialProvider = "ecr-credential-provider"

// credentialProviderConfig is the kubelet's CredentialProviderConfig.
func credentialProviderConfig() string {
	cfg := "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n- name: " + ecrCredentialProvider + "\n  matchImages:\n"
	for _, m := range ecrMatchImages {
		cfg += "  - \"" + m + "\"\n"
	}
	// "0", as the docs give it: the kubelet keeps what the plugin answers
	// for as long as the plugin says (the token's life).
	return cfg + "  defaultCacheDuration: \"0\"\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n"
}

// On the simulated cloud, every kubelet of an in-tree cluster pulls from
// the cloud's registry through the in-tree provider its kubelet main
// registers (clusters/nodeimage/modules/*/kubelet/credentials.go), with
// DisableKubeletCloudCredentialProviders off as it must be from 1.29;
// external kubelets through handover-credential-provider, in every node
// image.

// simCredentialProviderConfig is the kubelet's CredentialProviderConfig
// on every node of a cluster on the simulated cloud.
const simCredentialProviderConfig = "/etc/kubernetes/credential-provider.yaml"

// simImageCredentials are the kubelet flags of the plugin: any kubelet
// from 1.26 takes them (the plugin API is v1 there).
func simImageCredentials(string) map[string]string {
	return map[string]string{
		"image-credential-provider-config":  simCredentialProviderConfig,
		"image-credential-provider-bin-dir": nodeimage.CredentialProviderDir,
	}
}

// simCredentialProviderYAML is the plugin's entry: the cloud's registry
// only, the cloud configuration every node has.
func simCredentialProviderYAML() string {
	return "apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n- name: " + nodeimage.SimCredentialProvider +
		"\n  matchImages:\n  - \"" + SimRegistryHost + "\"\n  defaultCacheDuration: \"0\"\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n" +
		"  args:\n  - --cloud-config=" + CloudConfigPath + "\n"
}

// prepareSimulatedCloud writes the simulated cloud's registry files and
// the plugin's configuration: returned are the cloud's extra serve flags.
func prepareSimulatedCloud(cluster string) ([]string, error) {
	flags, err := prepareSimRegistry(cluster)
	if err != nil {
		return nil, err
	}
	return flags, privatefs.WriteFile(filepath.Join(StateDir(cluster), simCredentialProviderFile), []byte(simCredentialProviderYAML()))
}

const simCredentialProviderFile = "credential-provider.yaml"

// simNodeMounts are the files of the cloud's registry on every node.
func simNodeMounts(cluster string) []v1alpha4.Mount {
	reg := simRegistry(cluster)
	return []v1alpha4.Mount{
		{HostPath: filepath.Join(reg.stateDir, registryCertsSubdir), ContainerPath: reg.certsDir(), Readonly: true},
		{HostPath: filepath.Join(StateDir(cluster), simCredentialProviderFile), ContainerPath: simCredentialProviderConfig, Readonly: true},
	}
}
