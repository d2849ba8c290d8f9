package managers

// The forms a cloud-controller-manager runs in.
const (
	// DaemonSet on every control plane, as the RKE2 AWS chart runs it.
	DaemonSet = "daemonset"
	// Deployment with one replica per control plane, as the RKE2 Azure
	// chart runs it.
	Deployment = "deployment"
	// StaticPod on each control plane from a manifest, as the upstream
	// task doc runs it.
	StaticPod = "static-pod"
)
