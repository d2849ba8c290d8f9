package aws

import (
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// A kubelet from 1.27 on has no in-tree ECR provider: it pulls from ECR
// only through ecr-credential-provider, configured as the kubelet's
// --image-credential-provider-config documents and as cloud-provider-aws
// v1.27.2 docs/credential_provider.md gives the provider's entry.

// credentialProviderConfigPath is the kubelet's CredentialProviderConfig
// on a node whose image carries ecr-credential-provider.
const credentialProviderConfigPath = nodeDir + "/credential-provider.yaml"

// ecrMatchImages are the images the plugin is asked for: its docs' globs.
var ecrMatchImages = []string{"*.dkr.ecr.*.amazonaws.com", "*.dkr.ecr.*.amazonaws.com.cn"}

// imageCredentials: the flags of a version's ecr-credential-provider,
// when its node image has one. Its configuration is on every node of an
// aws cluster from the start (mounted: a kubelet started before a file it
// names exists would not start).
func imageCredentials(version string) map[string]string {
	if c, err := ccmOf(version); err != nil || c.CredentialProvider == "" {
		return nil
	}
	return map[string]string{
		"image-credential-provider-config":  credentialProviderConfigPath,
		"image-credential-provider-bin-dir": nodeimage.CredentialProviderDir,
	}
}

// ecrCredentialProvider is the plugin's name: its binary's.
const ecrCredentialProvider = "ecr-credential-provider"

// credentialProviderConfig is the kubelet's CredentialProviderConfig:
// "0", as the docs give it, so the kubelet keeps what the plugin answers
// for as long as the plugin says (the token's life).
func credentialProviderConfig() string {
	return cloudcluster.CredentialProviderConfig(cloudcluster.CredentialPlugin{Name: ecrCredentialProvider, MatchImages: ecrMatchImages, DefaultCacheDuration: "0"})
}
