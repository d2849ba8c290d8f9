package cloudcluster

import (
	"context"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
)

// A node that joins a cloud cluster later gets the cloud's files as the
// cluster's first nodes got them (cloudNodeMounts, which configure mounts
// too): those of its role, and its own (a provider's key for its
// kubelet), never the ones of the control plane it joins from
// (kindcluster copies that one's mounts). A node removed has what was its
// own ended (Cloud.NodeGone).

// Open is a handle on cluster name whose joins and removals take the
// cloud's part (NodeHooks): every handover command that may add or remove
// a node opens its cluster so.
func Open(name string, logger log.Logger) (*kindcluster.Cluster, error) {
	c, err := kindcluster.Open(name, logger)
	if err != nil {
		return nil, err
	}
	cloud, ok, err := cloudOf(name)
	if err != nil {
		return nil, err
	}
	if ok {
		c.Hooks = NodeHooks(name, cloud)
	}
	return c, nil
}

// NodeHooks are the part of a cluster's cloud, wired by cloud, in its
// nodes' lives: a joining node's binds (its own, not its donor's) and a
// removed node's end. Open and Create give a cluster's handle them.
func NodeHooks(cluster string, cloud Cloud) kindcluster.NodeHooks {
	return kindcluster.NodeHooks{
		Binds: func(_ context.Context, node, role string, donor []string) ([]string, error) {
			return joinBinds(cluster, cloud, node, role, donor)
		},
		Gone: func(_ context.Context, node string) error { return cloud.NodeGone(cluster, node) },
	}
}

// cloudNodeMounts are the cloud's files a node gets, by its name and
// role: the cloud's configuration and the audit policy, then the
// provider's.
func cloudNodeMounts(cluster string, cloud Cloud, node string, role v1alpha4.NodeRole) []v1alpha4.Mount {
	ms := []v1alpha4.Mount{cloudConfigMount(cluster), auditMount(cluster)}
	return append(ms, cloud.NodeMounts(cluster, node, role)...)
}

// cloudConfigMount is the simulated cloud's configuration, on every node.
func cloudConfigMount(cluster string) v1alpha4.Mount {
	return v1alpha4.Mount{HostPath: filepath.Join(StateDir(cluster), cloudConfigFile), ContainerPath: CloudConfigPath, Readonly: true}
}

// joinBinds are a joining node's binds: its donor's but the cloud's files,
// which are the node's own (what the provider gives it issued now).
func joinBinds(cluster string, cloud Cloud, node, role string, donor []string) ([]string, error) {
	cloudPaths := map[string]bool{}
	for _, r := range []v1alpha4.NodeRole{v1alpha4.ControlPlaneRole, v1alpha4.WorkerRole} {
		for _, m := range cloudNodeMounts(cluster, cloud, node, r) {
			cloudPaths[m.ContainerPath] = true
		}
	}
	var out []string
	for _, b := range donor {
		if parts := strings.Split(b, ":"); len(parts) < 2 || !cloudPaths[parts[1]] {
			out = append(out, b)
		}
	}
	if err := cloud.NodeJoins(cluster, node); err != nil {
		return nil, err
	}
	for _, m := range cloudNodeMounts(cluster, cloud, node, v1alpha4.NodeRole(role)) {
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
