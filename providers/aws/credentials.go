package aws

import (
	"github.com/handover-sh/handover/clusters/nodeimage"
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
