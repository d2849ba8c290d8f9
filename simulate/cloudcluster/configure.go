package cloudcluster

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
)

// configure mounts the cloud's files into every node (cloudNodeMounts:
// those a node joining later gets too), turns the API servers' audit on
// and points kubeadm, the kubelets and (in-tree) the
// kube-controller-manager at the provider. The cloud-routes pod network
// replaces kind's.
func configure(cfg *v1alpha4.Cluster, in ClusterInput, cloud Cloud) {
	cfg.Networking.DisableDefaultCNI = true
	cluster := in.Topology.Name
	for i, name := range kindNodeNames(cluster, cfg.Nodes) {
		cfg.Nodes[i].ExtraMounts = append(cfg.Nodes[i].ExtraMounts, cloudNodeMounts(cluster, cloud, name, cfg.Nodes[i].Role)...)
	}
	cfg.KubeadmConfigPatches = append(cfg.KubeadmConfigPatches, auditPatch)
	cfg.KubeadmConfigPatches = append(cfg.KubeadmConfigPatches, cloud.KubeadmPatches(in)...)
}

// KubeletArgLines are kubelet flags as kubeletExtraArgs lines of a
// nodeRegistration, in a stable order: what a provider's KubeadmPatches
// add to a kubelet's arguments.
func KubeletArgLines(args map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(args)) {
		b.WriteString("\n    " + k + ": " + args[k])
	}
	return b.String()
}

// kindNodeNames are the container names kind gives a cluster's nodes, in
// their order: NAME-ROLE for a role's first node, then NAME-ROLE2,
// NAME-ROLE3, … (kind v0.33.0 pkg/cluster/internal/providers/common/
// namer.go, MakeNodeNamer, applied in the configuration's order by each
// provider's provision.go).
func kindNodeNames(cluster string, nodes []v1alpha4.Node) []string {
	count := map[v1alpha4.NodeRole]int{}
	names := make([]string, len(nodes))
	for i, n := range nodes {
		count[n.Role]++
		suffix := ""
		if c := count[n.Role]; c > 1 {
			suffix = fmt.Sprint(c)
		}
		names[i] = cluster + "-" + string(n.Role) + suffix
	}
	return names
}
