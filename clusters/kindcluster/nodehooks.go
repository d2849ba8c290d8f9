package kindcluster

import (
	"context"
	"fmt"
)

// NodeHooks let the cloud a cluster runs on take part in its nodes'
// lives, which kindcluster runs knowing no cloud: a joining node would
// otherwise copy every bind mount of the control plane it joins from, its
// credentials included, and a node removed would keep what the cloud
// issued it.
type NodeHooks struct {
	// Binds are a joining node's bind mounts ("HOST:CONTAINER[:OPTIONS]",
	// beyond kind's own), from its name, its role and the binds of the
	// control plane it joins from; it runs before the node's container
	// is started.
	Binds func(ctx context.Context, node, role string, donor []string) ([]string, error)
	// Gone is told of a node whose container was removed (RemoveNode, or
	// a join that failed), so the cloud ends what it gave the node.
	Gone func(ctx context.Context, node string) error
}

// nodeBinds are a joining node's bind mounts: its donor's, as the
// cluster's hooks make them the node's own.
func (c *Cluster) nodeBinds(ctx context.Context, name, role string, donor []string) ([]string, error) {
	if c.Hooks.Binds == nil {
		return donor, nil
	}
	binds, err := c.Hooks.Binds(ctx, name, role, donor)
	if err != nil {
		return nil, fmt.Errorf("the mounts of node %s: %w", name, err)
	}
	return binds, nil
}

// nodeGone tells the cluster's hooks that a node's container was removed.
func (c *Cluster) nodeGone(ctx context.Context, name string) error {
	if c.Hooks.Gone == nil {
		return nil
	}
	if err := c.Hooks.Gone(ctx, name); err != nil {
		return fmt.Errorf("ending what the cloud gave node %s: %w", name, err)
	}
	return nil
}
