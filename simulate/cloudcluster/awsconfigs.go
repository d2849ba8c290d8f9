package cloudcluster

import (
	"github.com/handover-sh/handover/simulate/simcloud/amazon"
)

// AWSCloudConfigs are a user's own [Global] variables for each side, as
// a rehearsal carries them (providers/awsconfig.Carry): the in-tree
// provider's (the kube-controller-manager's and the kubelets') and the
// cloud-controller-manager's. Given, they replace handover's
// KubernetesClusterID, and the cloud tags the cluster's resources with
// the in-tree side's KubernetesClusterID, as the cluster being migrated
// has them tagged; a cloud-controller-manager that names another cluster
// then finds none of them.
type AWSCloudConfigs struct {
	KCM, CCM [][2]string
}

// WithAWSCloudConfigs runs an aws cluster's providers with the user's
// [Global] variables.
func WithAWSCloudConfigs(c AWSCloudConfigs) Option {
	return func(s *settings) { s.awsConfigs = &c }
}

// clusterIDVar is the variable that names the cluster's resources.
const clusterIDVar = "KubernetesClusterID"

// configs are the two sides' cloud-configs and the cluster ID the cloud
// tags with: handover's own file for both, or each side's variables.
func (c *AWSCloudConfigs) configs(base amazon.ProviderConfig, cluster string) (kcm, ccm amazon.ProviderConfig, clusterID string) {
	if c == nil {
		return base, base, cluster
	}
	kcm, ccm = base, base
	kcm.ClusterID, ccm.ClusterID = "", ""
	kcm.Global, ccm.Global = c.KCM, c.CCM
	clusterID = cluster
	for _, v := range c.KCM {
		if v[0] == clusterIDVar && v[1] != "" {
			clusterID = v[1]
		}
	}
	return kcm, ccm, clusterID
}
