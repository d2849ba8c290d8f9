package aws

import (
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
)

// A user's own [Global] variables for each side, as a rehearsal carries
// them (providers/awsconfig.Carry) into the cluster
// (cloudcluster.CloudConfigVars): the in-tree provider's (the
// kube-controller-manager's and the kubelets') and the
// cloud-controller-manager's; nil for a side without a file of the
// user's, which keeps handover's own.

// clusterIDVar is the variable that names the cluster's resources.
const clusterIDVar = "KubernetesClusterID"

// configs are the two sides' cloud-configs and the cluster ID the cloud
// tags the cluster's resources with: the one a user's file names (the
// in-tree side's first: the cluster being migrated has its resources
// tagged so; a side naming none takes it from its instance's tags), else
// the cluster's name. A side given a file runs with its variables alone; a
// side without one with handover's own, naming that ID.
func configs(own cloudcluster.CloudConfigVars, base amazon.ProviderConfig, cluster string) (kcm, ccm amazon.ProviderConfig, clusterID string) {
	clusterID = cluster
	for _, side := range [][][2]string{own.CCM, own.KCM} {
		if id := get(side, clusterIDVar); id != "" {
			clusterID = id
		}
	}
	own = ownResources(own, cluster)
	return config(own.KCM, base, clusterID), config(own.CCM, base, clusterID), clusterID
}

// standIns are the cluster's own resources, by the variable that names
// one (awsconfig.StandInFor): the route table a RouteTableID names is the
// cluster's main one, whose routes the pod network follows (findRouteTable
// takes it first in both releases: TestRouteTableFactsHoldToTheirSource).
var standIns = map[string]func(cluster string) string{
	"RouteTableID": func(cluster string) string { return amazon.Network{Cluster: cluster}.RouteTable() },
}

// ownResources puts the cluster's own resources in place of those the
// user's carried variables name.
func ownResources(own cloudcluster.CloudConfigVars, cluster string) cloudcluster.CloudConfigVars {
	swap := func(vars [][2]string) [][2]string {
		if vars == nil {
			return nil
		}
		out := make([][2]string, len(vars))
		for i, v := range vars {
			if ours, ok := standIns[v[0]]; ok {
				v[1] = ours(cluster)
			}
			out[i] = v
		}
		return out
	}
	return cloudcluster.CloudConfigVars{KCM: swap(own.KCM), CCM: swap(own.CCM)}
}

// config is one side's cloud-config: the user's variables, or (nil)
// handover's own naming clusterID.
func config(vars [][2]string, base amazon.ProviderConfig, clusterID string) amazon.ProviderConfig {
	if vars == nil {
		base.ClusterID = clusterID
		return base
	}
	base.ClusterID, base.Global = "", vars
	return base
}

func get(vars [][2]string, name string) string {
	for _, kv := range vars {
		if kv[0] == name {
			return kv[1]
		}
	}
	return ""
}
