package kindcluster

import (
	"context"
	"fmt"
)

// AddNodeOptions say what node to add.
type AddNodeOptions struct {
	Role       string
	Kubernetes string // node image version; "" = the cluster's
}

// AddNode is implemented in join.go.
func (c *Cluster) AddNode(ctx context.Context, o AddNodeOptions) (string, error) {
	return "", fmt.Errorf("not yet")
}

// RemoveNode is implemented in leave.go.
func (c *Cluster) RemoveNode(ctx context.Context, name string) error {
	return fmt.Errorf("not yet")
}
