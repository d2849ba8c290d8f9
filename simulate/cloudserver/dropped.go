package cloudserver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// DropTraffic asks drop, of every load balancer by its name and what it
// carries now, which of its node address:port pairs the cloud's network
// drops its traffic to (api.LoadBalancerSpec.Dropped), and applies each
// answer that changed, as a cloud applies a change of its firewall rules: by the
// cloud itself, not a caller's request, so no knob refuses it and the
// audit has no call. A face calls it in process when rules it keeps
// change (the AWS face's security groups).
func (s *Server) DropTraffic(ctx context.Context, drop func(name string, spec api.LoadBalancerSpec) []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []error
	changed := false
	for _, name := range slices.Sorted(maps.Keys(s.state.LoadBalancers)) {
		lb := s.state.LoadBalancers[name]
		dropped := slices.Clone(drop(name, lb.Spec))
		sort.Strings(dropped)
		if slices.Equal(lb.Spec.Dropped, dropped) {
			continue
		}
		lb.Spec.Dropped = dropped
		if err := validateDropped(lb.Spec); err != nil {
			errs = append(errs, fmt.Errorf("load balancer %s: %w", name, err))
			continue
		}
		if !s.virtualLB(lb) {
			if _, err := s.opts.Backends.LoadBalancers.Ensure(ctx, s.realBackends(lb)); err != nil {
				errs = append(errs, fmt.Errorf("load balancer %s: %w", name, err))
				continue
			}
		}
		lb.Updated = s.opts.Now()
		s.state.LoadBalancers[name] = lb
		changed = true
	}
	if !changed {
		return errors.Join(errs...)
	}
	if err := s.persist(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
