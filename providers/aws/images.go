package aws

import "github.com/handover-sh/handover/clusters/nodeimage"

// nodeImages are the cloud-provider-aws manager each node image preloads,
// by Kubernetes version: the N+1 side of a migration off the in-tree
// provider.
var nodeImages = map[string]nodeimage.ProviderCCM{
	"v1.26.13": cloudProviderAWS("v1.26.1"),
	// cloud-provider-aws v1.27.2 is the newest 1.27 release the module proxy
	// serves whole (providers/profiles: the aws profile of 1.27).
	"v1.27.4": withECRCredentialProvider(cloudProviderAWS("v1.27.2")),
	// A cluster already external on 1.29 (describe's round trip): v1.29.6
	// is the newest 1.29 release the module proxy serves whole.
	"v1.29.15": withECRCredentialProvider(cloudProviderAWS("v1.29.6")),
}

func init() {
	for version, c := range nodeImages {
		nodeimage.AddProviderCCM(version, c)
	}
}

// cloudProviderAWS is cloud-provider-aws's manager of a release, as its
// Dockerfile builds it (k8s.io/cloud-provider-aws Dockerfile: the binary at
// /bin/aws-cloud-controller-manager, the entrypoint; the image is
// registry.k8s.io/provider-aws/cloud-controller-manager, as its chart's
// values.yaml names it).
func cloudProviderAWS(version string) nodeimage.ProviderCCM {
	return nodeimage.ProviderCCM{Provider: Name, Module: "cloud-provider-aws-" + version, Version: version,
		Package: "k8s.io/cloud-provider-aws/cmd/aws-cloud-controller-manager",
		Image:   "registry.k8s.io/provider-aws/cloud-controller-manager:" + version, Binary: "/bin/aws-cloud-controller-manager"}
}

// withECRCredentialProvider adds the release's ecr-credential-provider:
// a kubelet without the in-tree aws provider (1.27 and later) pulls from
// ECR only through it.
func withECRCredentialProvider(c nodeimage.ProviderCCM) nodeimage.ProviderCCM {
	c.CredentialProvider = "k8s.io/cloud-provider-aws/cmd/ecr-credential-provider"
	return c
}
