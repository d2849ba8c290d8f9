package cloudcluster

import (
	"context"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/topology"
)

// Cloud is a provider wired into the clusters made on the simulated
// cloud: what the cluster's cloud serves for it, the files and kubeadm
// settings its nodes get, what is applied once the cluster is up, and its
// part in a node's arrival and departure. A provider whose code runs in a
// cluster has it (providers.As[cloudcluster.Cloud]); an imitated
// provider's clusters are the default provider's, their cloud-config
// naming the imitation's profile. Create, the node hooks and the cleanup
// ask it; none of them knows a provider's name.
type Cloud interface {
	// Validate refuses a cluster the provider's code cannot run in, before
	// anything is made.
	Validate(in ClusterInput) error
	// Prepare writes what the cloud and the nodes need under the cluster's
	// state dir, before the cloud starts, and says how the cloud serves
	// the provider.
	Prepare(ctx context.Context, in PrepareInput) (Served, error)
	// NodeMounts are the provider's files a node gets, by its name (a
	// node's own files) and role.
	NodeMounts(cluster, node string, role v1alpha4.NodeRole) []v1alpha4.Mount
	// KubeadmPatches point kubeadm, the kubelets and (in-tree) the
	// kube-controller-manager at the provider.
	KubeadmPatches(in ClusterInput) []string
	// NodeJoins gives a node what is its own (a key) before its container
	// starts: each of a new cluster's nodes, and any joining later.
	NodeJoins(cluster, node string) error
	// NodeGone ends what a removed node was given.
	NodeGone(cluster, node string) error
	// Manifests are applied in order once the cluster is up and its pod
	// network installed.
	Manifests(in ClusterInput) ([]string, error)
}

// ClusterInput is the cluster a Cloud wires: its shape, its cloud mode,
// and the workload an external mode's manager runs as.
type ClusterInput struct {
	Topology topology.Topology
	Mode     Mode
	Workload string // DaemonSet or Deployment
}

// PrepareInput is what a Cloud prepares a cluster's cloud from.
type PrepareInput struct {
	Cluster string
	// Gateway is the kind network's gateway, where the nodes reach the
	// cloud (FreePorts finds ports there).
	Gateway string
	// Vars are the user's cloud-config variables, for a provider whose
	// code reads a cloud-config.
	Vars CloudConfigVars
	// Policies are the user's permission policies by component (kcm, ccm,
	// kubelet), for a provider whose cloud holds its callers to them
	// (providers.Policies); nil: none.
	Policies map[string][]byte
	// Network is the network's shape, for a provider whose cloud shapes
	// it (providers.NetworkShapes); zero: a fresh one.
	Network NetworkShape
}

// CloudConfigVars are a user's cloud-config variables (name, value, in
// their file's order) for each side of a migration, as a rehearsal carries
// them: the in-tree provider's (the kube-controller-manager's and the
// kubelets') and the cloud-controller-manager's. A side without a file of
// the user's is nil and keeps handover's own; a file whose variables were
// all left behind is empty, not nil.
type CloudConfigVars struct {
	KCM, CCM [][2]string
}

// Served is how a cluster's cloud serves its provider, as Prepare made it
// ready: create starts the cloud with Flags, then, once it answers, the
// metadata redirect and the registry.
type Served struct {
	// Flags are `simcloud serve`'s flags beyond those every cloud gets
	// (a provider's face, cloudserver.Face, among them).
	Flags []string
	// ConfigRegistry is the registry the cluster's cloud-config names, for
	// the nodes' credential plugin ("": none).
	ConfigRegistry string
	// Registry is the cloud's registry container ("" Host: none).
	Registry Registry
	// Metadata is where the instance metadata address is redirected
	// (HOST:PORT; "": it is not). Cleanup removes the redirect.
	Metadata string
}
