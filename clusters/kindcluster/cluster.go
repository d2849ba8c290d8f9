package kindcluster

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/engine"
)

// Cluster is a handle on an existing kind cluster.
type Cluster struct {
	Name     string
	Logger   log.Logger
	provider *cluster.Provider

	// Hooks are the cloud's part in joins and removals (none: a joining
	// node copies its donor's mounts).
	Hooks NodeHooks

	kubeconfigs kubeconfigCache
	nodes       *engine.Set // nil: the process's shared watch
	names       nodeNames
}

// Open returns a handle on cluster name, failing if it has no nodes
// (ErrNoCluster).
func Open(name string, logger log.Logger) (*Cluster, error) {
	c := newHandle(name, logger)
	ns, err := c.containers(context.Background())
	if err != nil {
		return nil, fmt.Errorf("listing nodes of cluster %q: %w", name, err)
	}
	if len(ns) == 0 {
		return nil, noCluster(name)
	}
	return c, nil
}

func newHandle(name string, logger log.Logger) *Cluster {
	return &Cluster{Name: name, Logger: logger,
		provider: cluster.NewProvider(cluster.ProviderWithDocker(), cluster.ProviderWithLogger(logger))}
}

// Over is a handle on cluster name whose containers come from set (a
// fake engine's, in tests).
func Over(name string, logger log.Logger, set *engine.Set) *Cluster {
	c := newHandle(name, logger)
	c.nodes = set
	return c
}

// Selector is the label selector of a cluster's containers.
func Selector(name string) string { return clusterLabel + "=" + name }

// Labels are the labels kind puts on a node container of the cluster.
func Labels(name, role string) map[string]string {
	return map[string]string{clusterLabel: name, roleLabel: role}
}

// set is the watched list of this cluster's containers.
func (c *Cluster) set() (*engine.Set, error) {
	if c.nodes != nil {
		return c.nodes, nil
	}
	return engine.Watch(Selector(c.Name))
}

// containers lists the cluster's containers, balancer included, by name:
// from the engine's event-fed cache, so polling it is free.
func (c *Cluster) containers(ctx context.Context) ([]engine.Container, error) {
	s, err := c.set()
	if err != nil {
		return nil, err
	}
	return s.List(ctx)
}

// forget drops the cached list after handover itself added or removed a
// container, so the next read does not wait for the engine's event.
func (c *Cluster) forget() {
	if s, err := c.set(); err == nil {
		s.Invalidate()
	}
}

// byRole lists the cluster's node containers whose role keep accepts,
// sorted by name.
func (c *Cluster) byRole(keep func(role string) bool) ([]nodes.Node, error) {
	all, err := c.containers(context.Background())
	if err != nil {
		return nil, err
	}
	var out []nodes.Node
	for _, ct := range all {
		if keep(ct.Labels[roleLabel]) {
			out = append(out, node{ct})
		}
	}
	return out, nil
}

// Nodes lists the cluster's Kubernetes node containers (not the balancer).
func (c *Cluster) Nodes() ([]nodes.Node, error) {
	return c.byRole(func(r string) bool { return r != roleBalancer })
}

// ControlPlanes lists control-plane nodes, sorted by name.
func (c *Cluster) ControlPlanes() ([]nodes.Node, error) {
	return c.byRole(func(r string) bool { return r == RoleControlPlane })
}

// Workers are the cluster's worker nodes.
func (c *Cluster) Workers() ([]nodes.Node, error) {
	return c.byRole(func(r string) bool { return r == RoleWorker })
}

// balancer returns the control-plane balancer container, or nil.
func (c *Cluster) balancer() (nodes.Node, error) {
	lbs, err := c.byRole(func(r string) bool { return r == roleBalancer })
	if err != nil || len(lbs) == 0 {
		return nil, err
	}
	return lbs[0], nil
}

// node finds a node container by name.
func (c *Cluster) node(name string) (nodes.Node, error) {
	all, err := c.containers(context.Background())
	if err != nil {
		return nil, err
	}
	var names []string
	for _, ct := range all {
		if ct.Name == name {
			return node{ct}, nil
		}
		names = append(names, ct.Name)
	}
	return nil, noNode("cluster %q has no node %q (nodes: %s)", c.Name, name, strings.Join(names, ", "))
}

// internalEndpoint is host:port of the API as nodes reach it.
func (c *Cluster) internalEndpoint() (string, error) {
	kc, err := c.kubeconfig(context.Background(), true)
	if err != nil {
		return "", err
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(kc))
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(cfg.Host, "https://"), nil
}

// run executes a command in a node and returns its trimmed output; errors
// carry the command and its output.
func run(ctx context.Context, n nodes.Node, name string, args ...string) (string, error) {
	var out strings.Builder
	err := whilePaused(ctx, func() error {
		out.Reset()
		return n.CommandContext(ctx, name, args...).SetStdout(&out).SetStderr(&out).Run()
	})
	if err != nil {
		return out.String(), fmt.Errorf("on %s: %s %s: %w: %s", n, name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// Apply creates or updates manifests with kubectl on a control plane.
func (c *Cluster) Apply(ctx context.Context, manifest string) error {
	cps, err := c.ControlPlanes()
	if err != nil || len(cps) == 0 {
		return fmt.Errorf("no control plane to apply from: %v", err)
	}
	var out strings.Builder
	cmd := cps[0].CommandContext(ctx, "kubectl", "apply", "-f", "-").SetStdin(strings.NewReader(manifest)).SetStdout(&out).SetStderr(&out)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("kubectl apply on %s: %w: %s", cps[0], err, strings.TrimSpace(out.String()))
	}
	return nil
}

// InternalEndpoint is host:port of the API as nodes and pods reach it.
func (c *Cluster) InternalEndpoint() (string, error) { return c.internalEndpoint() }

// Running says whether a node's container is running: a worker whose
// instance was terminated in the simulated cloud is stopped, not removed.
func (c *Cluster) Running(ctx context.Context, name string) (bool, error) {
	s, err := c.set()
	if err != nil {
		return false, err
	}
	return s.Running(ctx, name)
}

// PID is the host PID of a running node container's init.
func (c *Cluster) PID(ctx context.Context, name string) (int, error) {
	s, err := c.set()
	if err != nil {
		return 0, err
	}
	return s.PID(ctx, name)
}
