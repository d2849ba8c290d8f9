package aws

import (
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// Manager is cloud-provider-aws's manager as the procedures place it: the
// chart's workload, or a static pod. Its identity as a static pod (its
// kubeconfig, user and RBAC) is the simulated provider's: that is
// kubeadm's way, not the provider's.
func (Provider) Manager() providers.Manager {
	return providers.Manager{
		CloudProvider:            Name,
		CloudConfigPath:          cloudcluster.AWSCloudConfigPath,
		CCMCloudConfigPath:       cloudcluster.AWSCCMCloudConfigPath,
		CCMUser:                  cloudcluster.CCMUser,
		CCMLeaderLockingRole:     cloudcluster.CCMLeaderLockingRole,
		CCMRBAC:                  cloudcluster.CCMRBAC,
		CCMStaticPodPath:         cloudcluster.CCMStaticPodPath,
		CCMKubeconfigPath:        cloudcluster.CCMKubeconfigPath,
		LeaderMigrationConfigMap: cloudcluster.LeaderMigrationConfigMap,
		CCMWorkloadName:          cloudcluster.AWSCCMName,
		Forms:                    forms{},
	}
}

// forms are cloud-provider-aws's manager's forms.
type forms struct{}

func (forms) Image(version string) string { return cloudcluster.AWSCCMImageOf(version) }

func (forms) Kubeconfig(conf, caCert, caKey []byte) (string, error) {
	return cloudcluster.CCMKubeconfig(conf, caCert, caKey)
}

func (forms) StaticPod(in providers.StaticPodInput) string {
	return cloudcluster.AWSCCMStaticPod(in.Version, in.Cluster, in.PodSubnet, in.Args, cloudcluster.HostFiles(in.Files)...)
}

func (forms) Workload(in providers.WorkloadInput) string {
	return cloudcluster.AWSCCMWorkload(in.Form, in.Replicas, in.Version, in.Cluster, in.PodSubnet, in.Config, in.ConfigPath, in.Args...)
}

// InTreeCode is the in-tree aws provider a release builds in, CCMCode
// the cloud-provider-aws release its node image carries.
func (Provider) InTreeCode(version string) string { return cloudcluster.AWSInTreeCode(version) }
func (Provider) CCMCode(version string) string    { return cloudcluster.AWSCCMCode(version) }

// The cloud's ECR: a kubelet without the in-tree ECR provider pulls
// through ecr-credential-provider.
func (Provider) KubeletCredentialFlags(version string) map[string]string {
	return cloudcluster.AWSImageCredentials(version)
}
func (Provider) RegistryImage() string { return cloudcluster.EchoImageInRegistry }

// ReadsMachineShapes: the aws provider's code reads an instance's network
// interfaces and private addresses.
func (Provider) ReadsMachineShapes() {}
