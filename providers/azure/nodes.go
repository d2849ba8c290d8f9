package azure

import (
	"path/filepath"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

const (
	// nodeDir holds the providers' cloud-configs on every node: the
	// chart mounts the host's /etc/kubernetes into its manager.
	nodeDir = "/etc/kubernetes/azure"
	// CloudConfigPath is the kubelets' azure.json: the node's own managed
	// identity, as an in-tree kubelet on an Azure VM asks it.
	CloudConfigPath = nodeDir + "/azure.json"
	// kcmCloudConfigPath and CCMCloudConfigPath are the managers':
	// each names the user-assigned identity issued to it, so that the
	// cloud tells the callers apart.
	kcmCloudConfigPath = nodeDir + "/kcm.json"
	CCMCloudConfigPath = nodeDir + "/ccm.json"
	// caPath is the cloud's CA among the node's trusted certificates: Go
	// reads every file of /etc/ssl/certs, which the kubelet sees on the
	// node, kubeadm mounts into the kube-controller-manager and the chart
	// (its /etc/ssl) into its manager. The CA may sign only the cloud's
	// address, names under handover.invalid and the cluster's registry.
	caPath = "/etc/ssl/certs/handover-azure-cloud.pem"
	// imagesDir holds the on-demand images the bootstrap imports.
	imagesDir = "/var/lib/handover/azure-images"
	// bootstrapKubeadmPath is ahead of the image's /usr/bin/kubeadm on
	// PATH, so kind's and handover's kubeadm runs take it.
	bootstrapKubeadmPath = "/usr/local/bin/kubeadm"
)

// hostFiles are the files written for an azure cluster (relative to its
// state dir) and where each is mounted: on every node, or only on
// control planes.
var hostFiles = []cloudcluster.NodeFile{
	{Name: "azure.json", Path: CloudConfigPath},
	{Name: "kcm.json", Path: kcmCloudConfigPath, ControlPlane: true},
	{Name: "ccm.json", Path: CCMCloudConfigPath, ControlPlane: true},
	{Name: "ca.crt", Path: caPath},
	{Name: "credential-provider.yaml", Path: credentialProviderConfigPath},
	{Name: "bootstrap-kubeadm", Path: bootstrapKubeadmPath},
}

// NodeMounts are the azure files a node gets by its role, the registry's,
// and the images of every on-demand build of cloud-provider-azure in the
// cache.
func (Provider) NodeMounts(cluster, _ string, role v1alpha4.NodeRole) []v1alpha4.Mount {
	out := append(cloudcluster.FileMounts(stateDir(cluster), hostFiles, role), registryMounts(cluster)...)
	for _, b := range onDemandBuilds() {
		for _, a := range b.Archives {
			out = append(out, v1alpha4.Mount{HostPath: a, ContainerPath: filepath.Join(imagesDir, archiveName(a)), Readonly: true})
		}
	}
	return out
}

// archiveName names a cached archive (…/images/<image>-<key>/image.tar)
// by its directory, which is unique.
func archiveName(path string) string { return filepath.Base(filepath.Dir(path)) + ".tar" }

// onDemandBuilds are the builds of cloud-provider-azure the cache holds,
// one per release that has one.
func onDemandBuilds() []nodeimage.OnDemandBuild {
	var out []nodeimage.OnDemandBuild
	for _, v := range nodeimage.OnDemandVersions(Name) {
		if b, err := nodeimage.FindOnDemand(nodeimage.DefaultCacheDir(), v, Name); err == nil {
			out = append(out, b)
		}
	}
	return out
}

// A node's files are the cluster's; its identity is its address's.
func (Provider) NodeJoins(string, string) error { return nil }
func (Provider) NodeGone(string, string) error  { return nil }

// stateDir holds what an azure cluster's nodes are given.
func stateDir(cluster string) string { return filepath.Join(cloudcluster.StateDir(cluster), "azure") }
