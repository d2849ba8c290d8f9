package aws

import (
	"fmt"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// An aws cluster's cloud also answers as EC2, classic ELB and the instance
// metadata service (simulate/cloudserver/amazon), and its kubelets and
// managers run the aws provider's own code against it: pointed there by
// the provider's cloud-config ([ServiceOverride]s), signing with keys the
// cloud issued each component, and named as AWS names instances.

var _ cloudcluster.Cloud = Provider{}

const (
	// CloudConfigPath is the aws providers' cloud-config on every node:
	// the in-tree provider's (kube-controller-manager and kubelets).
	CloudConfigPath = nodeDir + "/cloud.conf"
	// CCMCloudConfigPath is the cloud-controller-manager's: the same
	// unless a user gives each side its own.
	CCMCloudConfigPath = nodeDir + "/cloud-ccm.conf"
	nodeDir            = "/etc/kubernetes/aws"
	// The kube-controller-manager's key, as the SDK's shared credentials
	// file: a static pod's environment shows in its mirror pod, a path
	// does not.
	kcmCredentials = nodeDir + "/kube-controller-manager.credentials"
	// patchDir holds the kubeadm patch that points the manager there.
	patchDir = nodeDir + "/patches"
	// NodeNameFromMetadata is the node name cluster-api's AWS templates
	// give kubeadm: the bootstrap fills in the instance's private DNS
	// name, formed from the metadata service's answers, before kubeadm
	// runs (bootstrap-kubeadm.sh says why not its local-hostname).
	NodeNameFromMetadata = "{{ ds.meta_data.local_hostname }}"
)

// Validate refuses a cluster the aws provider's code cannot run in:
// in-tree needs a kube-controller-manager that still has the aws
// provider (its profile says which minors do), external a node image
// that carries cloud-provider-aws's manager.
func (Provider) Validate(in cloudcluster.ClusterInput) error {
	if judged, err := cloudcluster.ValidateInTree(Name, in, "1.27", "v1.26.13"); judged {
		return err
	}
	t := in.Topology
	if _, err := nodeimage.Lookup(t.Kubernetes); err != nil {
		return err
	}
	if _, err := ccmOf(t.Kubernetes); err == nil {
		return nil
	}
	return fmt.Errorf("--provider %s --cloud external: the %s node image carries no cloud-provider-aws manager: use --kubernetes %s", Name, t.Kubernetes, strings.Join(externalVersions(), " or "))
}

// KubeadmPatches point kubeadm, the kubelets and (in-tree) the
// kube-controller-manager at the aws provider: every node named by its
// instance's private DNS name, as kubeadm clusters on AWS name them.
func (Provider) KubeadmPatches(in cloudcluster.ClusterInput) []string {
	kubelet := "cloud-provider: external"
	// An external kubelet without an in-tree ECR provider pulls from the
	// cloud's registry through the plugin its image carries.
	kubelet += cloudcluster.KubeletArgLines(imageCredentials(in.Topology.Kubernetes))
	if in.Mode == cloudcluster.InTree {
		kubelet = "cloud-provider: " + Name + "\n    cloud-config: " + CloudConfigPath
	}
	registration := `nodeRegistration:
  name: '` + NodeNameFromMetadata + `'
  kubeletExtraArgs:
    ` + kubelet + `
    provider-id: ""
patches:
  directory: ` + patchDir
	patches := []string{"kind: InitConfiguration\n" + registration, "kind: JoinConfiguration\n" + registration}
	if in.Mode != cloudcluster.InTree {
		return patches
	}
	return append(patches, cloudcluster.InTreeKCM{Provider: Name, CloudConfig: CloudConfigPath, Cluster: in.Topology.Name, Routes: true,
		Files: []cloudcluster.HostVolume{{Name: "aws-credentials", Path: kcmCredentials}}}.Patch())
}

// Manifests: the manager's key as a Secret, and in external mode the
// chart's objects (whatever the workload asked: the chart's is a
// DaemonSet).
func (Provider) Manifests(in cloudcluster.ClusterInput) ([]string, error) {
	t := in.Topology
	secret, err := credentialsSecret(t.Name)
	if err != nil {
		return nil, err
	}
	if in.Mode != cloudcluster.External {
		return []string{secret}, nil
	}
	return []string{secret, chartManifest(t.Kubernetes, t.Name, t.PodSubnet)}, nil
}

// externalVersions are the node images that carry cloud-provider-aws's
// manager, oldest first.
func externalVersions() []string {
	var out []string
	for _, v := range nodeimage.Known() {
		if _, ok := nodeImages[v]; ok {
			out = append(out, v)
		}
	}
	return out
}
