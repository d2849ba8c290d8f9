// Package byaddress finds the instance a metadata service's caller is, by
// its address, from a listing of the cloud's instances at most a TTL old:
// every process on a node asks at start, so one listing answers them all.
package byaddress

import (
	"context"
	"sync"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// Instances is the cache of one face's metadata service.
type Instances struct {
	// Cloud lists the instances, as Component (a copy is made per listing).
	Cloud     *api.Client
	Component string
	TTL       time.Duration
	// Addresses are an instance's addresses a caller may come from.
	Addresses func(api.Instance) []string

	mu     sync.Mutex
	listed time.Time
	byIP   map[string]api.Instance
}

// Find is the instance at ip, and false when no instance has it.
func (l *Instances) Find(ip string) (api.Instance, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now := time.Now(); l.byIP == nil || now.Sub(l.listed) > l.TTL {
		c := *l.Cloud
		c.Component = l.Component
		all, err := c.Instances(context.Background(), "instance-metadata")
		if err != nil {
			return api.Instance{}, false, err
		}
		l.byIP, l.listed = map[string]api.Instance{}, now
		for _, in := range all {
			for _, a := range l.Addresses(in) {
				l.byIP[a] = in
			}
		}
	}
	in, ok := l.byIP[ip]
	return in, ok, nil
}
