package cloudcluster

import (
	"github.com/handover-sh/handover/simulate/simcloud/amazon"
)

// AWSCloudConfigs are a user's own [Global] variables for each side, as a
// rehearsal carries them (providers/awsconfig.Carry): the in-tree
// provider's (the kube-controller-manager's and the kubelets') and the
// cloud-controller-manager's; nil for a side without a file of the user's,
// which keeps handover's own.
type AWSCloudConfigs struct {
	KCM, CCM *AWSVars
}

// AWSVars are one file's [Global] variables (name, value), in order.
type AWSVars struct{ Vars [][2]string }

// WithAWSCloudConfigs runs an aws cluster's providers with the user's
// [Global] variables.
func WithAWSCloudConfigs(c AWSCloudConfigs) Option {
	return func(s *settings) { s.awsConfigs = &c }
}

// clusterIDVar is the variable that names the cluster's resources.
const clusterIDVar = "KubernetesClusterID"

// configs are the two sides' cloud-configs and the cluster ID the cloud
// tags the cluster's resources with: the one a user's file names (the
// in-tree side's first: the cluster being migrated has its resources
// tagged so; a side naming none takes it from its instance's tags), else
// the cluster's name. A side given a file runs with its variables alone; a
// side without one with handover's own, naming that ID.
func (c *AWSCloudConfigs) configs(base amazon.ProviderConfig, cluster string) (kcm, ccm amazon.ProviderConfig, clusterID string) {
	if c == nil {
		return base, base, cluster
	}
	clusterID = cluster
	for _, side := range []*AWSVars{c.CCM, c.KCM} {
		if id := side.get(clusterIDVar); id != "" {
			clusterID = id
		}
	}
	return c.KCM.config(base, clusterID), c.CCM.config(base, clusterID), clusterID
}

func (v *AWSVars) config(base amazon.ProviderConfig, clusterID string) amazon.ProviderConfig {
	if v == nil {
		base.ClusterID = clusterID
		return base
	}
	base.ClusterID, base.Global = "", v.Vars
	return base
}

func (v *AWSVars) get(name string) string {
	if v == nil {
		return ""
	}
	for _, kv := range v.Vars {
		if kv[0] == name {
			return kv[1]
		}
	}
	return ""
}
