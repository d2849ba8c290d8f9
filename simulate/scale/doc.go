// Package scale is a rehearsal's simulated fleet: hundreds of nodes with no
// kubelet, each backed by a virtual instance of the simulated cloud and kept
// Ready by kwok, LoadBalancer Services with endpoints on them, and more
// nodes joining while the procedure runs — so the cloud-node,
// cloud-node-lifecycle, route and service controllers of whichever manager
// runs them do the work of a large cluster, against a cloud that throttles
// each caller as a cloud account does.
//
// The fleet registers each node as its kubelet would: an in-tree kubelet
// asks the cloud for its instance and registers with its ProviderID; an
// external one registers tainted uninitialised and leaves the rest to the
// cloud-controller-manager. Which one a joining node is follows the
// newest control plane's kubelet, whose flags a joining worker takes.
package scale
