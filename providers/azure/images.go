package azure

import (
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
)

// nodeImages are the cloud-provider-azure releases a node image's build
// makes on demand, by Kubernetes version: the N+1 side of a migration off
// the in-tree provider. They are built only by `handover images build
// --provider azure` and preloaded into no node image, so the default
// images stay as they are; a cluster imports them into its nodes.
var nodeImages = map[string]nodeimage.ProviderCCM{
	"v1.30.14": cloudProviderAzure("v1.30.4", "b07d452b616332a41f546789f0b90ce2b15fc2a6"),
}

func init() {
	for version, c := range nodeImages {
		nodeimage.AddProviderCCM(version, c)
	}
}

// cloudProviderAzure is cloud-provider-azure's release as its own build
// makes it (sigs.k8s.io/cloud-provider-azure, at the release):
//   - Dockerfile: the manager, from ./cmd/cloud-controller-manager, at
//     /usr/local/bin/cloud-controller-manager, the entrypoint; as root.
//   - cloud-node-manager.Dockerfile: the node manager, from
//     ./cmd/cloud-node-manager, at /usr/local/bin/cloud-node-manager, the
//     entrypoint; USER 65532:65532.
//   - Makefile: bin/azure-acr-credential-provider from
//     ./cmd/acr-credential-provider, the kubelet plugin (no image), named
//     acr-credential-provider by examples/out-of-tree/
//     credential-provider-config.yaml.
//   - helm/cloud-provider-azure/values.yaml: the images
//     mcr.microsoft.com/oss/kubernetes/azure-cloud-controller-manager and
//     …/azure-cloud-node-manager, tagged with the release.
//
// commit is the release tag's, as the module proxy's Origin gives it.
func cloudProviderAzure(version, commit string) nodeimage.ProviderCCM {
	const mod, repo = "sigs.k8s.io/cloud-provider-azure", "mcr.microsoft.com/oss/kubernetes/"
	return nodeimage.ProviderCCM{Provider: Name, Module: "cloud-provider-azure-" + version, Version: version,
		Package: mod + "/cmd/cloud-controller-manager", Image: repo + "azure-cloud-controller-manager:" + version,
		Binary:             "/usr/local/bin/cloud-controller-manager",
		CredentialProvider: mod + "/cmd/acr-credential-provider",
		LDFlags:            azureLDFlags(version, commit),
		NodeManager: &nodeimage.ProviderImage{Package: mod + "/cmd/cloud-node-manager",
			Image: repo + "azure-cloud-node-manager:" + version, Binary: "/usr/local/bin/cloud-node-manager", User: "65532:65532"},
		OnDemand: true}
}

// azureLDFlags are hack/pkg-config.sh's link flags as its Makefile passes
// them to every binary: -s -w, and gitVersion, gitCommit and buildDate in
// both sigs.k8s.io/cloud-provider-azure/pkg/version and
// k8s.io/client-go/pkg/version. The first is the version the binaries
// report: pkg/version/base.go declares the variables, pkg/version/
// version.go's Get returns them, and cmd/cloud-controller-manager/app/
// controllermanager.go and cmd/cloud-node-manager/app/nodemanager.go print
// it (--version, through pkg/version/verflag) and log it at start; the
// k8s.io/component-base variable the aws rows stamp is not read. On a
// release tag the script leaves gitMajor and gitMinor empty (its pattern
// wants a suffix after the patch), so they are not set here either; the
// build date is fixed so equal inputs give equal binaries.
func azureLDFlags(version, commit string) string {
	flags := []string{"-s", "-w"}
	for _, pkg := range []string{"sigs.k8s.io/cloud-provider-azure/pkg/version", "k8s.io/client-go/pkg/version"} {
		flags = append(flags, "-X", pkg+".gitVersion="+version, "-X", pkg+".gitCommit="+commit,
			"-X", pkg+".buildDate=1970-01-01T00:00:00Z")
	}
	return strings.Join(flags, " ")
}
