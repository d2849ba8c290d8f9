package aws

import (
	"path/filepath"

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
var hostFiles = []struct {
	name, path   string
	controlPlane bool
}{
	{"cloud.conf", CloudConfigPath, false},
	{"cloud-ccm.conf", CCMCloudConfigPath, false},
	{"bootstrap-kubeadm", bootstrapKubeadmPath, false},
	{"patches", patchDir, false},
	{"kube-controller-manager.credentials", kcmCredentials, true},
	{"cloud-controller-manager.credentials", ccmKeyPath, true},
	{"ca.crt", caPath, false},
	{"credential-provider.yaml", credentialProviderConfigPath, false},
	{cloudcluster.RegistryCertsSubdir, registryCertsDir, false},
}

// NodeMounts are the aws files a node gets by its role, and its own
// kubelet key (the file issueKubeletKey writes for it).
func (Provider) NodeMounts(cluster, node string, role v1alpha4.NodeRole) []v1alpha4.Mount {
	dir := stateDir(cluster)
	var out []v1alpha4.Mount
	for _, f := range hostFiles {
		if f.controlPlane && role != v1alpha4.ControlPlaneRole {
			continue
		}
		out = append(out, v1alpha4.Mount{HostPath: filepath.Join(dir, f.name), ContainerPath: f.path, Readonly: true})
	}
	return append(out, v1alpha4.Mount{HostPath: kubeletEnvFile(cluster, node), ContainerPath: kubeletEnvPath, Readonly: true})
}

// NodeJoins issues the node's kubelet its own key.
func (Provider) NodeJoins(cluster, node string) error {
	_, err := issueKubeletKey(cluster, node)
	return err
}

// NodeGone revokes the node's kubelet keys.
func (Provider) NodeGone(cluster, node string) error { return revokeKubeletKeys(cluster, node) }
