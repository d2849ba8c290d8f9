package migrate

import (
	"context"
	"time"

	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/managers"
)

// Cluster is what steps need from a cluster's machines, beyond its API:
// listing, adding and removing nodes, and reading and writing their files.
// *kindcluster.Cluster is the real one; the steps' unit tests use a fake.
type Cluster interface {
	Nodes() ([]nodes.Node, error)
	ControlPlanes() ([]nodes.Node, error)
	AddNode(ctx context.Context, o kindcluster.AddNodeOptions) (string, error)
	RemoveNode(ctx context.Context, name string) error
	// NodeName is the name of the Node a node (container) registered,
	// which a cloud's kubelet may choose (found false: none registered).
	NodeName(ctx context.Context, node string) (name string, found bool, err error)
	// Running is false once a node's machine has stopped.
	Running(ctx context.Context, name string) (bool, error)
	Exec(ctx context.Context, node string, args ...string) (string, error)
	ReadFile(ctx context.Context, node, path string) (string, error)
	// WriteFile replaces a file whole, making its directory when missing.
	WriteFile(ctx context.Context, node, path, content string) error
	RemoveFile(ctx context.Context, node, path string) error
	// Apply applies a multi-document manifest, as kubectl apply does.
	Apply(ctx context.Context, manifest string) error
	ImageRefs(ctx context.Context, node string) (map[string]bool, error)
	LoadImages(ctx context.Context, version string, refs []string, targets ...string) error
}

// ManagerClient asks the controller managers on a node what they run.
type ManagerClient interface {
	Get(ctx context.Context, node, component, path string, timeout time.Duration) (managers.Answer, error)
	Controllers(ctx context.Context, node, component string, timeout time.Duration) (map[string]bool, error)
}

var _ Cluster = (*kindcluster.Cluster)(nil)
