package kindcluster

import (
	"context"
	"sync"
)

// kubeconfigCache keeps kind's kubeconfig export (a node listing, a role
// read per node and a file read in a node) until the cluster's containers
// change: callers ask for a client in every wait.
type kubeconfigCache struct {
	mu         sync.Mutex
	generation uint64
	byInternal map[bool]string
}

func (c *Cluster) kubeconfig(internal bool) (string, error) {
	s, err := c.set()
	if err != nil {
		return "", err
	}
	gen, err := s.Generation(context.Background())
	if err != nil {
		return "", err
	}
	k := &c.kubeconfigs
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.generation != gen || k.byInternal == nil {
		k.generation, k.byInternal = gen, map[bool]string{}
	}
	if kc, ok := k.byInternal[internal]; ok {
		return kc, nil
	}
	// kind reads every node's role to find the endpoint.
	kc, err := retryRoles(func() (string, error) { return c.provider.KubeConfig(c.Name, internal) })
	if err != nil {
		return "", err
	}
	k.byInternal[internal] = kc
	return kc, nil
}
