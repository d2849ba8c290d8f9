// Package kindcluster creates, changes and deletes handover's kind clusters,
// with kind used as a library. Beyond what kind does it adds and removes
// nodes of a live cluster (kubeadm join, drain, etcd member removal, and the
// control-plane balancer's backend list kept current), which the
// control-plane replacement in a migration needs, and cleans up everything a
// cluster made on the host.
package kindcluster

import "github.com/handover-sh/handover/clusters/engine"

// Labels kind puts on node containers; nodes handover adds carry them too,
// so kind lists and deletes them like its own.
const (
	clusterLabel = "io.x-k8s.kind.cluster"
	roleLabel    = "io.x-k8s.kind.role"
	// dockerNetwork is the network kind puts every cluster on.
	dockerNetwork = engine.KindNetwork
)

// Roles a node can have.
const (
	RoleControlPlane = "control-plane"
	RoleWorker       = "worker"
)

// roleBalancer is the role kind gives its control-plane balancer.
const roleBalancer = "external-load-balancer"
