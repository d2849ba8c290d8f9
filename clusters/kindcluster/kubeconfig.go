package kindcluster

import (
	"context"
	"strings"
	"sync"

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

func (c *Cluster) kubeconfig(internal bool) (string, error) {
	s, err := c.set()
	if err != nil {
		return "", err
	}
	all, err := s.List(context.Background())
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
	kc, err := retryRoles(func() (string, error) { return c.provider.KubeConfig(c.Name, internal) })
	if err != nil {
		return "", err
	}
	k.byInternal[internal] = kc
	return kc, nil
}
