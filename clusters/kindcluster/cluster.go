package kindcluster

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/cluster/nodes"
	"sigs.k8s.io/kind/pkg/cluster/nodeutils"
	kexec "sigs.k8s.io/kind/pkg/exec"
	"sigs.k8s.io/kind/pkg/log"
)

// Cluster is a handle on an existing kind cluster.
type Cluster struct {
	Name     string
	Logger   log.Logger
	provider *cluster.Provider
}

// Open returns a handle on cluster name, failing if it has no nodes.
func Open(name string, logger log.Logger) (*Cluster, error) {
	c := newHandle(name, logger)
	ns, err := c.provider.ListNodes(name)
	if err != nil {
		return nil, fmt.Errorf("listing nodes of cluster %q: %w", name, err)
	}
	if len(ns) == 0 {
		return nil, fmt.Errorf("no cluster named %q: create it with `handover cluster create --name %s`", name, name)
	}
	return c, nil
}

func newHandle(name string, logger log.Logger) *Cluster {
	return &Cluster{Name: name, Logger: logger,
		provider: cluster.NewProvider(cluster.ProviderWithDocker(), cluster.ProviderWithLogger(logger))}
}

// Nodes lists the cluster's Kubernetes node containers (not the balancer).
func (c *Cluster) Nodes() ([]nodes.Node, error) {
	all, err := retryListing(func() ([]nodes.Node, error) { return c.provider.ListInternalNodes(c.Name) })
	if err != nil {
		return nil, err
	}
	sort.Slice(all, func(i, j int) bool { return all[i].String() < all[j].String() })
	return all, nil
}

// ControlPlanes lists control-plane nodes, sorted by name.
func (c *Cluster) ControlPlanes() ([]nodes.Node, error) {
	return retryListing(func() ([]nodes.Node, error) {
		all, err := c.provider.ListNodes(c.Name)
		if err != nil {
			return nil, err
		}
		return nodeutils.ControlPlaneNodes(all)
	})
}

// Workers are the cluster's worker nodes.
func (c *Cluster) Workers() ([]nodes.Node, error) {
	return retryListing(func() ([]nodes.Node, error) {
		all, err := c.provider.ListNodes(c.Name)
		if err != nil {
			return nil, err
		}
		return nodeutils.SelectNodesByRole(all, RoleWorker)
	})
}

// retryListing retries a listing that reads each node's role: a node
// added or removed at that moment (nodes come and go during a migration
// under load) fails the read of its role once.
func retryListing(list func() ([]nodes.Node, error)) ([]nodes.Node, error) {
	return retryRoles(list)
}

// retryRoles retries anything that lists the cluster's nodes with their
// roles (kind's own kubeconfig export does too), for the reason above.
func retryRoles[T any](f func() (T, error)) (T, error) {
	var v T
	var err error
	for try := 0; try < 5; try++ {
		if v, err = f(); err == nil {
			return v, nil
		}
		time.Sleep(300 * time.Millisecond)
	}
	return v, err
}

// balancer returns the control-plane balancer container, or nil.
func (c *Cluster) balancer() (nodes.Node, error) {
	var lb nodes.Node
	_, err := retryListing(func() ([]nodes.Node, error) {
		all, err := c.provider.ListNodes(c.Name)
		if err != nil {
			return nil, err
		}
		lb, err = nodeutils.ExternalLoadBalancerNode(all)
		return nil, err
	})
	return lb, err
}

// node finds a node container by name.
func (c *Cluster) node(name string) (nodes.Node, error) {
	all, err := c.provider.ListNodes(c.Name)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range all {
		if n.String() == name {
			return n, nil
		}
		names = append(names, n.String())
	}
	return nil, fmt.Errorf("cluster %q has no node %q (nodes: %s)", c.Name, name, strings.Join(names, ", "))
}

// Kubeconfig returns an admin kubeconfig reachable from this host.
func (c *Cluster) Kubeconfig() (string, error) {
	// kind reads every node's role to find the endpoint.
	return retryRoles(func() (string, error) { return c.provider.KubeConfig(c.Name, false) })
}

// RESTConfig returns a client configuration through the cluster endpoint.
func (c *Cluster) RESTConfig() (*rest.Config, error) {
	kc, err := c.Kubeconfig()
	if err != nil {
		return nil, err
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig([]byte(kc))
	if err != nil {
		return nil, err
	}
	cfg.UserAgent = "handover"
	return cfg, nil
}

// Client returns a clientset through the cluster endpoint.
func (c *Cluster) Client() (kubernetes.Interface, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// internalEndpoint is host:port of the API as nodes reach it.
func (c *Cluster) internalEndpoint() (string, error) {
	kc, err := retryRoles(func() (string, error) { return c.provider.KubeConfig(c.Name, true) })
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
	out, err := kexec.Output(kexec.CommandContext(ctx, "docker", "inspect", "--format", "{{.State.Running}}", name))
	if err != nil {
		return false, fmt.Errorf("inspecting node %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)) == "true", nil
}
