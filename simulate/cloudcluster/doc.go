// Package cloudcluster creates kind clusters on the simulated cloud: it runs
// a simcloud for the cluster, mounts the cloud configuration into every
// node, patches kubeadm for the chosen cloud mode, and installs the pod
// network in cloud-routes mode (cross-node pod traffic follows the cloud's
// route table, so the route controller's hand-off shows in the data path).
// What a provider's code needs of the cluster (its files, flags, keys and
// manifests) is the provider's own, asked through its Cloud.
package cloudcluster

// Mode says which manager runs the cloud controllers.
type Mode string

// Modes.
const (
	// None: no cloud; pod routes are programmed by the CNI agent.
	None Mode = "none"
	// InTree: kube-controller-manager runs the cloud loops
	// (--cloud-provider=kind) and kubelets set their own ProviderIDs.
	InTree Mode = "in-tree"
	// External: kubelets run with --cloud-provider=external and a
	// cloud-controller-manager runs the cloud loops.
	External Mode = "external"
)

// CloudConfigPath is where nodes and managers find the cloud configuration.
const CloudConfigPath = "/etc/kubernetes/cloud-config.json"
