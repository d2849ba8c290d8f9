package kindcluster

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/handover-sh/handover/clusters/nodeaccess"
)

// Exec runs a command in the named node and returns its trimmed output.
func (c *Cluster) Exec(ctx context.Context, node string, args ...string) (string, error) {
	n, err := c.node(node)
	if err != nil {
		return "", err
	}
	return run(ctx, n, args[0], args[1:]...)
}

// ReadFile reads a file of the named node: through the node's root file
// system from the host when that can be reached (no process; waits poll
// manifests this way), else with cat in the node.
func (c *Cluster) ReadFile(ctx context.Context, node, path string) (string, error) {
	if pid, err := c.PID(ctx, node); err == nil {
		data, err := nodeaccess.ReadFile(pid, path)
		if !errors.Is(err, nodeaccess.ErrNoRoot) {
			if err != nil {
				return "", fmt.Errorf("reading %s on %s: %w", path, node, err)
			}
			return string(data), nil
		}
	}
	return c.catFile(ctx, node, path)
}

func (c *Cluster) catFile(ctx context.Context, node, path string) (string, error) {
	n, err := c.node(node)
	if err != nil {
		return "", err
	}
	var out, errOut strings.Builder
	err = whilePaused(ctx, func() error {
		out.Reset()
		errOut.Reset()
		return n.CommandContext(ctx, "cat", path).SetStdout(&out).SetStderr(&errOut).Run()
	})
	if err != nil {
		return "", fmt.Errorf("reading %s on %s: %w: %s", path, node, err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

// WriteFile replaces a file of the named node in one rename, so a kubelet
// watching the directory never reads half a manifest; its directory is
// made when missing.
func (c *Cluster) WriteFile(ctx context.Context, node, path, content string) error {
	n, err := c.node(node)
	if err != nil {
		return err
	}
	return c.writeFile(ctx, n, path, content)
}

// RemoveFile deletes a file of the named node; a missing file is no error.
func (c *Cluster) RemoveFile(ctx context.Context, node, path string) error {
	n, err := c.node(node)
	if err != nil {
		return err
	}
	_, err = run(ctx, n, "rm", "-f", path)
	return err
}
