package aws

import (
	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/simulate/cloudcluster"
)

const (
	// bootstrapKubeadmPath is ahead of the image's /usr/bin/kubeadm on
	// PATH, so kind's and handover's kubeadm runs take it.
	bootstrapKubeadmPath = "/usr/local/bin/kubeadm"
	// kubeletEnvPath is the kubelet unit's EnvironmentFile for overrides
	// (kind's 10-kubeadm.conf drop-in): its key reaches it there.
	kubeletEnvPath = "/etc/default/kubelet"
)

// hostFiles are the files written for an aws cluster (relative to its
// state dir) and where each is mounted: on every node, or only on
// control planes. A node's kubelet key is its own (NodeMounts).
var hostFiles = []cloudcluster.NodeFile{
	{Name: "cloud.conf", Path: CloudConfigPath},
	{Name: "cloud-ccm.conf", Path: CCMCloudConfigPath},
	{Name: "bootstrap-kubeadm", Path: bootstrapKubeadmPath},
	{Name: "patches", Path: patchDir},
	{Name: "kube-controller-manager.credentials", Path: kcmCredentials, ControlPlane: true},
	{Name: "cloud-controller-manager.credentials", Path: ccmKeyPath, ControlPlane: true},
	{Name: "ca.crt", Path: caPath},
	{Name: "credential-provider.yaml", Path: credentialProviderConfigPath},
	{Name: cloudcluster.RegistryCertsSubdir, Path: registryCertsDir},
}

// NodeMounts are the aws files a node gets by its role, and its own
// kubelet key (the file issueKubeletKey writes for it).
func (Provider) NodeMounts(cluster, node string, role v1alpha4.NodeRole) []v1alpha4.Mount {
	out := cloudcluster.FileMounts(stateDir(cluster), hostFiles, role)
	return append(out, v1alpha4.Mount{HostPath: kubeletEnvFile(cluster, node), ContainerPath: kubeletEnvPath, Readonly: true})
}

// NodeJoins issues the node's kubelet its own key.
func (Provider) NodeJoins(cluster, node string) error {
	_, err := issueKubeletKey(cluster, node)
	return err
}

// NodeGone revokes the node's kubelet keys.
func (Provider) NodeGone(cluster, node string) error { return revokeKubeletKeys(cluster, node) }
