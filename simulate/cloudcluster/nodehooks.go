package cloudcluster

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/providers"
)

// A node that joins a cloud cluster later gets the cloud's files as the
// cluster's first nodes got them (cloudNodeMounts, which configure mounts
// too): those of its role, and its own kubelet key, never the ones of the
// control plane it joins from (kindcluster copies that one's mounts). A
// node removed has its kubelet key revoked.

// Open is a handle on cluster name whose joins and removals take the
// cloud's part (NodeHooks): every handover command that may add or remove
// a node opens its cluster so.
func Open(name string, logger log.Logger) (*kindcluster.Cluster, error) {
	c, err := kindcluster.Open(name, logger)
	if err != nil {
		return nil, err
	}
	c.Hooks = nodeHooks(name)
	return c, nil
}

// nodeHooks are a cluster's cloud's part in its nodes' lives; none for a
// cluster without a cloud.
func nodeHooks(cluster string) kindcluster.NodeHooks {
	provider, ok := cloudOf(cluster)
	if !ok {
		return kindcluster.NodeHooks{}
	}
	return kindcluster.NodeHooks{
		Binds: func(_ context.Context, node, role string, donor []string) ([]string, error) {
			return joinBinds(cluster, provider, node, role, donor)
		},
		Gone: func(_ context.Context, node string) error { return RevokeKubeletKeys(cluster, node) },
	}
}

// cloudOf is the provider whose files a cluster's cloud gives its nodes,
// and false when the cluster has no cloud.
func cloudOf(cluster string) (string, bool) {
	if _, err := os.Stat(filepath.Join(StateDir(cluster), cloudConfigFile)); errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	if _, err := os.Stat(awsStateDir(cluster)); err == nil {
		return providers.AWS, true
	}
	return ProviderName, true
}

// cloudNodeMounts are the cloud's files a node gets, by its name and
// role: the cloud's configuration and the audit policy, then the
// provider's.
func cloudNodeMounts(cluster, provider, node string, role v1alpha4.NodeRole) []v1alpha4.Mount {
	ms := []v1alpha4.Mount{cloudConfigMount(cluster), auditMount(cluster)}
	if provider == providers.AWS {
		return append(ms, awsNodeMounts(cluster, node, role)...)
	}
	return append(ms, simNodeMounts(cluster)...)
}

// cloudConfigMount is the simulated cloud's configuration, on every node.
func cloudConfigMount(cluster string) v1alpha4.Mount {
	return v1alpha4.Mount{HostPath: filepath.Join(StateDir(cluster), cloudConfigFile), ContainerPath: CloudConfigPath, Readonly: true}
}

// joinBinds are a joining node's binds: its donor's but the cloud's files,
// which are the node's own (an aws node's kubelet key issued for it now).
func joinBinds(cluster, provider, node, role string, donor []string) ([]string, error) {
	cloud := map[string]bool{}
	for _, r := range []v1alpha4.NodeRole{v1alpha4.ControlPlaneRole, v1alpha4.WorkerRole} {
		for _, m := range cloudNodeMounts(cluster, provider, node, r) {
			cloud[m.ContainerPath] = true
		}
	}
	var out []string
	for _, b := range donor {
		if parts := strings.Split(b, ":"); len(parts) < 2 || !cloud[parts[1]] {
			out = append(out, b)
		}
	}
	if provider == providers.AWS {
		if _, err := IssueKubeletKey(cluster, node); err != nil {
			return nil, err
		}
	}
	for _, m := range cloudNodeMounts(cluster, provider, node, v1alpha4.NodeRole(role)) {
		out = append(out, bindOf(m))
	}
	return out, nil
}

// bindOf is a mount as kind gives it to the engine (kind v0.33.0
// pkg/cluster/internal/providers/docker/provision.go,
// generateMountBindings): HOST:CONTAINER, then :ro when read-only.
func bindOf(m v1alpha4.Mount) string {
	b := m.HostPath + ":" + m.ContainerPath
	if m.Readonly {
		b += ":ro"
	}
	return b
}
