package kindcluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	kexec "sigs.k8s.io/kind/pkg/exec"
	"sigs.k8s.io/kind/pkg/log"
)

// Delete removes a cluster's containers (and their anonymous volumes), its
// kubeconfig entry, the kind network once no cluster uses it, and restores
// the host kernel settings kubelets change once no cluster is left. It is
// safe on a half-created or already deleted cluster.
func (c *Cluster) Delete(ctx context.Context, kubeconfigPath string) error {
	if err := c.deleteNodes(kubeconfigPath); err != nil {
		return err
	}
	return c.releaseHost(ctx)
}

func (c *Cluster) deleteNodes(kubeconfigPath string) error {
	if _, err := os.Lstat(kubeconfigPath); kubeconfigPath != "" && errors.Is(err, fs.ErrNotExist) {
		// No kubeconfig holds the cluster's entry (a create refused before
		// kind wrote it): kind deletes the nodes with a throwaway one, and
		// the path, maybe one handover may not write, is left alone.
		tmp, err := os.MkdirTemp("", "handover-kubeconfig-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		kubeconfigPath = filepath.Join(tmp, "kubeconfig")
	}
	err := viaPrivateCopy(kubeconfigPath, func(kubeconfig string) error {
		return c.provider.Delete(c.Name, kubeconfig)
	})
	if err != nil {
		return fmt.Errorf("deleting cluster %q: %w", c.Name, err)
	}
	_ = os.RemoveAll(failedNodesDir(c.Name)) // logs nobody collected
	return nil
}

func (c *Cluster) releaseHost(ctx context.Context) error {
	if err := removeNetworkIfUnused(ctx); err != nil {
		return err
	}
	return restoreHostSysctls(c)
}

// DeleteByName deletes a cluster without requiring it to exist.
func DeleteByName(ctx context.Context, name, kubeconfigPath string, logger log.Logger) error {
	return newHandle(name, logger).Delete(ctx, kubeconfigPath)
}

// DeleteNodesByName removes a cluster's node containers and kubeconfig
// entry only, for callers that have other containers of the cluster to
// remove before the network can go (ReleaseHost).
func DeleteNodesByName(name, kubeconfigPath string, logger log.Logger) error {
	return newHandle(name, logger).deleteNodes(kubeconfigPath)
}

// ReleaseHost removes the kind network once no container uses it, and puts
// the host's kernel settings back once no kind cluster is left.
func ReleaseHost(ctx context.Context, logger log.Logger) error {
	return newHandle("", logger).releaseHost(ctx)
}

func removeNetworkIfUnused(ctx context.Context) error {
	out, err := kexec.Output(kexec.CommandContext(ctx, "docker", "network", "inspect", "--format", "{{len .Containers}}", dockerNetwork))
	if err != nil {
		return nil // no such network
	}
	if strings.TrimSpace(string(out)) != "0" {
		return nil
	}
	if err := kexec.CommandContext(ctx, "docker", "network", "rm", dockerNetwork).Run(); err != nil {
		return fmt.Errorf("removing docker network %q: %w", dockerNetwork, err)
	}
	return nil
}
