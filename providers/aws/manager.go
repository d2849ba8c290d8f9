package aws

import (
	"strings"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// Manager is cloud-provider-aws's manager as the procedures place it: the
// chart's workload, or a static pod. Its identity as a static pod (its
// kubeconfig, user and RBAC) is the simulated provider's: that is
// kubeadm's way, not the provider's.
func (Provider) Manager() providers.Manager {
	return providers.Manager{
		CloudProvider:            Name,
		CloudConfigPath:          CloudConfigPath,
		CCMCloudConfigPath:       CCMCloudConfigPath,
		CCMUser:                  cloudcluster.CCMUser,
		CCMLeaderLockingRole:     cloudcluster.CCMLeaderLockingRole,
		CCMRBAC:                  cloudcluster.CCMRBAC,
		CCMStaticPodPath:         cloudcluster.CCMStaticPodPath,
		CCMKubeconfigPath:        cloudcluster.CCMKubeconfigPath,
		LeaderMigrationConfigMap: cloudcluster.LeaderMigrationConfigMap,
		CCMWorkloadName:          CCMName,
		Forms:                    forms{},
	}
}

// InTreeCode is the in-tree aws provider a Kubernetes release builds
// into its managers and kubelets: k8s.io/legacy-cloud-providers, staged
// with the release as v0.<minor>.<patch> (the node image modules' go.mod
// replaces it so). "" for a release without it in tree (its profile says).
func (Provider) InTreeCode(version string) string {
	r, err := nodeimage.Lookup(version)
	if err != nil || !r.InTreeCloud {
		return ""
	}
	if p, err := profiles.Lookup(Name, version); err != nil || !p.InTree.Value {
		return ""
	}
	return "k8s.io/legacy-cloud-providers/aws@v0." + strings.TrimPrefix(version, "v1.")
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

// ReadsMachineShapes: the aws provider's code reads an instance's network
// interfaces and private addresses.
func (Provider) ReadsMachineShapes() {}
