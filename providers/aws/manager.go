package aws

import (
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// Manager is cloud-provider-aws's manager as the procedures place it: the
// chart's workload, or a static pod.
func (Provider) Manager() providers.Manager {
	return cloudcluster.KubeadmManager(cloudcluster.ManagerSide{CloudProvider: Name, CloudConfigPath: CloudConfigPath,
		CCMCloudConfigPath: CCMCloudConfigPath, WorkloadName: CCMName, Forms: forms{}})
}

// InTreeCode is the in-tree aws provider a Kubernetes release builds into
// its managers and kubelets.
func (Provider) InTreeCode(version string) string {
	return cloudcluster.LegacyInTreeCode(Name, version)
}

// CCMCode is the cloud-provider-aws release a node image carries.
func (Provider) CCMCode(version string) string {
	c, err := ccmOf(version)
	if err != nil {
		return ""
	}
	return "k8s.io/cloud-provider-aws@" + c.Version
}

// The cloud's ECR: a kubelet without the in-tree ECR provider pulls
// through ecr-credential-provider.
func (Provider) KubeletCredentialFlags(version string) map[string]string {
	return imageCredentials(version)
}
func (Provider) RegistryImage() string { return echoImage }

// ServesInstanceMetadata: the aws cloud serves EC2's metadata service at
// 169.254.169.254 (Prepare's Served.Metadata).
func (Provider) ServesInstanceMetadata() {}

// ShapesNetwork: the aws provider's simulated cloud tags further route
// tables for the cluster (shapeFlags).
func (Provider) ShapesNetwork() {}

// ReadsMachineShapes: the aws provider's code reads an instance's network
// interfaces and private addresses.
func (Provider) ReadsMachineShapes() {}
