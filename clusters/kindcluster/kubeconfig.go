package kindcluster

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/handover-sh/handover/clusters/engine"
)

// kubeconfigCache keeps kind's kubeconfig export (a node listing, a role
// read per node and a file read in a node) for as long as the container
// kind takes the endpoint from stays: callers ask for a client in every
// wait, and nodes join and go all through a rehearsal.
type kubeconfigCache struct {
	mu         sync.Mutex
	key        string
	byInternal map[bool]string
}

// endpointKey names the containers the endpoint comes from: the balancer,
// or the control planes of a cluster without one.
func endpointKey(all []engine.Container) string {
	var cps []string
	for _, c := range all {
		switch c.Labels[roleLabel] {
		case roleBalancer:
			return c.ID
		case RoleControlPlane:
			cps = append(cps, c.ID)
		}
	}
	return strings.Join(cps, ",")
}

// Kubeconfig returns an admin kubeconfig reachable from this host.
func (c *Cluster) Kubeconfig() (string, error) {
	return c.KubeconfigContext(context.Background())
}

// KubeconfigContext is Kubeconfig, given up when ctx ends.
func (c *Cluster) KubeconfigContext(ctx context.Context) (string, error) {
	return c.kubeconfig(ctx, false)
}

// InternalKubeconfig returns an admin kubeconfig reachable from containers
// on the kind network (the cluster's balancer, or its one control plane).
func (c *Cluster) InternalKubeconfig() (string, error) {
	return c.kubeconfig(context.Background(), true)
}

// RESTConfig returns a client configuration through the cluster endpoint.
func (c *Cluster) RESTConfig() (*rest.Config, error) {
	return c.RESTConfigContext(context.Background())
}

// RESTConfigContext is RESTConfig, given up when ctx ends.
func (c *Cluster) RESTConfigContext(ctx context.Context) (*rest.Config, error) {
	kc, err := c.KubeconfigContext(ctx)
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
	return c.ClientContext(context.Background())
}

// ClientContext is Client, given up when ctx ends.
func (c *Cluster) ClientContext(ctx context.Context) (kubernetes.Interface, error) {
	cfg, err := c.RESTConfigContext(ctx)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

func (c *Cluster) kubeconfig(ctx context.Context, internal bool) (string, error) {
	s, err := c.set()
	if err != nil {
		return "", err
	}
	all, err := s.List(ctx)
	if err != nil {
		return "", err
	}
	key := endpointKey(all)
	k := &c.kubeconfigs
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key != key || k.byInternal == nil {
		k.key, k.byInternal = key, map[bool]string{}
	}
	if kc, ok := k.byInternal[internal]; ok {
		return kc, nil
	}
	// kind reads every node's role to find the endpoint.
	kc, err := retryRoles(ctx, roleRetries, func() (string, error) { return c.provider.KubeConfig(c.Name, internal) })
	if err != nil {
		return "", err
	}
	k.byInternal[internal] = kc
	return kc, nil
}

// roleRetries are how often, and how far apart, retryRoles tries.
var roleRetries = retries{tries: 5, every: 300 * time.Millisecond}

type retries struct {
	tries int
	every time.Duration
}

// retryRoles retries anything of kind's that lists the cluster's nodes and
// reads each one's role (its kubeconfig export does): a node added or
// removed at that moment (nodes come and go during a migration under load)
// fails the read of its role once. It gives up when ctx ends, with the
// last error.
func retryRoles[T any](ctx context.Context, r retries, f func() (T, error)) (T, error) {
	t := time.NewTicker(r.every)
	defer t.Stop()
	for try := 1; ; try++ {
		v, err := f()
		if err == nil || try >= r.tries {
			return v, err
		}
		select {
		case <-ctx.Done():
			return v, fmt.Errorf("%w (the last try: %w)", ctx.Err(), err)
		case <-t.C:
		}
	}
}
