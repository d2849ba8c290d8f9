package live

import (
	corev1 "k8s.io/api/core/v1"
)

// Cluster is what describe read of a running cluster.
type Cluster struct {
	Source   string // the kubeconfig and context it was read through
	Version  string // the API server's (gitVersion)
	Nodes    []corev1.Node
	Managers []Manager
	// LoadBalancers counts the Services of type LoadBalancer.
	LoadBalancers int
	// Gone are manager pods not read, each with why: finished or being
	// deleted, their flags may be a rollout's old ones.
	Gone []string
}

// Manager is one pod of a controller manager as it runs.
type Manager struct {
	Name  string // kube-controller-manager or cloud-controller-manager
	Pod   string // namespace/name
	Node  string
	Image string
	Args  []string // its container's command and arguments
	// Form is how it runs: static-pod, daemonset or deployment ("" when
	// the API does not say), of Workload (kind/name) with Replicas.
	Form     string
	Workload string
	Replicas int
	// Files are the files its flags name that the API shows (a ConfigMap
	// mounted there), by path; Unread those it cannot, by path, with why.
	Files  map[string]File
	Unread map[string]string
}

// File is a file a manager reads, and where the API showed it.
type File struct {
	Content string
	From    string // configmap NAMESPACE/NAME key KEY
}

// The forms a cloud-controller-manager runs in, as the rehearsal file
// names them (ccm.form).
const (
	StaticPod  = "static-pod"
	DaemonSet  = "daemonset"
	Deployment = "deployment"
)
