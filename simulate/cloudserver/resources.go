package cloudserver

import (
	"context"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

func (s *Server) listInstances(r *http.Request) (any, error) {
	all, err := s.instances(r.Context())
	if err != nil {
		return nil, err
	}
	scope := s.scope(r)
	out := all[:0:0]
	for _, in := range s.lagged(r, all) {
		if inScope(in, scope) {
			out = append(out, in)
		}
	}
	return out, nil
}

func (s *Server) getInstanceByProviderID(r *http.Request) (any, error) {
	id := r.PathValue("id")
	if in, ok := s.virtualWithID(id); ok {
		return s.seenFrom(r, in, "ProviderID "+id)
	}
	return s.findInstance(r, "ProviderID "+id, func(in api.Instance) bool { return in.ProviderID == id })
}

func (s *Server) getInstance(r *http.Request) (any, error) {
	name := r.PathValue("name")
	if in, ok := s.virtualNamed(name); ok {
		return s.seenFrom(r, in, name)
	}
	return s.findInstance(r, name, func(in api.Instance) bool { return in.Name == name })
}

// scope is the region or zone the caller's credentials see; "" is all.
func (s *Server) scope(r *http.Request) string {
	return s.faults.get().Scope[r.Header.Get(api.HeaderComponent)]
}

// inScope: the instance is in the region or zone named ("" names all).
func inScope(in api.Instance, scope string) bool {
	return scope == "" || in.Region == scope || in.Zone == scope
}

// seenFrom is the instance as the caller's credentials see it: not found
// when outside their scope, or launched too lately for its view (the
// audit names the knob).
func (s *Server) seenFrom(r *http.Request, in api.Instance, what string) (any, error) {
	if scope := s.scope(r); !inScope(in, scope) {
		return nil, &httpError{code: http.StatusNotFound, msg: "no instance " + what, fault: "scope"}
	}
	if s.stillLaunching(r, in) {
		return nil, &httpError{code: http.StatusNotFound, msg: "no instance " + what, fault: "lag"}
	}
	return in, nil
}

// findInstance returns the first live instance that matches (or, to a
// lagging view, one terminated a moment ago), or a 404 naming what was
// looked for.
func (s *Server) findInstance(r *http.Request, what string, match func(api.Instance) bool) (any, error) {
	all, err := s.instances(r.Context())
	if err != nil {
		return nil, err
	}
	for _, in := range append(all, s.lingering(s.lagOf(r))...) {
		if match(in) {
			return s.seenFrom(r, in, what)
		}
	}
	return nil, notFound("no instance %s", what)
}

func (s *Server) terminateInstance(r *http.Request) (any, error) {
	got, err := s.getInstance(r)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	_, virtual := s.state.Virtual[r.PathValue("name")]
	s.mu.Unlock()
	if t, ok := s.opts.Backends.Instances.(Terminator); ok && !virtual {
		if err := t.Terminate(r.Context(), r.PathValue("name")); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state.Terminated[r.PathValue("name")] = true
	if in, ok := got.(api.Instance); ok {
		s.recordTermination(in)
	}
	return nil, s.persist()
}

// Terminated says whether the instance of that name was terminated: the
// AWS face refuses its node's keys from then on.
func (s *Server) Terminated(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.Terminated[name]
}

func (s *Server) listLoadBalancers(*http.Request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []api.LoadBalancer{}
	for _, lb := range s.state.LoadBalancers {
		out = append(out, lb)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (s *Server) getLoadBalancer(r *http.Request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lb, ok := s.state.LoadBalancers[r.PathValue("name")]
	if !ok {
		return nil, notFound("no load balancer %s", r.PathValue("name"))
	}
	return lb, nil
}

// ensureLoadBalancer creates or replaces a load balancer. One with no
// ports is an address the cloud holds and forwards nothing on: a reserved
// address, as a cloud's static public IP is before a rule uses it (the
// Azure face's public IPs are such load balancers until a frontend's
// rules give them ports). The simulated provider never asks for one: a
// Service always has a port.
func (s *Server) ensureLoadBalancer(r *http.Request) (any, error) { return s.putLoadBalancer(r, true) }

// updateLoadBalancer changes an existing load balancer and never creates
// one: a service controller updating the hosts of a Service being deleted
// must not bring its load balancer back.
func (s *Server) updateLoadBalancer(r *http.Request) (any, error) { return s.putLoadBalancer(r, false) }

func (s *Server) putLoadBalancer(r *http.Request, create bool) (any, error) {
	var spec api.LoadBalancerSpec
	if err := decode(r, &spec); err != nil {
		return nil, err
	}
	if err := validateSpec(spec); err != nil {
		return nil, err
	}
	if err := s.checkBackends(r, spec); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	name := r.PathValue("name")
	lb, exists := s.state.LoadBalancers[name]
	now := s.opts.Now()
	if !exists && !create {
		return nil, notFound("no load balancer %s", name)
	}
	if !exists {
		lb = api.LoadBalancer{Name: name, Created: now}
	}
	lb.Spec, lb.Updated = spec, now
	ensure := s.opts.Backends.LoadBalancers.Ensure
	if s.virtualLB(lb) {
		ensure = func(context.Context, api.LoadBalancer) (string, error) { return s.ensureVirtualLB(lb) }
	}
	ip, err := ensure(r.Context(), s.realBackends(lb))
	if err != nil {
		return nil, err
	}
	lb.IP = ip
	s.state.LoadBalancers[name] = lb
	return lb, s.persist()
}

// validateSpec refuses ports and backends the cloud cannot carry. No ports
// at all is a reserved address (ensureLoadBalancer).
func validateSpec(spec api.LoadBalancerSpec) error {
	for _, p := range spec.Ports {
		if p.Port <= 0 || p.NodePort <= 0 {
			return badRequest("port %d -> node port %d: both must be set", p.Port, p.NodePort)
		}
	}
	for _, n := range spec.Nodes {
		if net.ParseIP(n) == nil {
			return badRequest("backend node %q is not an IP address", n)
		}
	}
	if err := validateDropped(spec); err != nil {
		return err
	}
	if d := spec.Draining; d != nil && d.Enabled && (d.Timeout < 1 || d.Timeout > 3600) {
		return badRequest("draining timeout %ds: 1 to 3600 seconds, as ELB takes", d.Timeout)
	}
	return validateHealthCheck(spec.HealthCheck)
}

// validateDropped: each dropped pair is one of the load balancer's nodes
// at a port.
func validateDropped(spec api.LoadBalancerSpec) error {
	for _, d := range spec.Dropped {
		host, port, err := net.SplitHostPort(d)
		if err != nil || !slices.Contains(spec.Nodes, host) {
			return badRequest("dropped %q: not one of the load balancer's nodes at a port", d)
		}
		if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
			return badRequest("dropped %q: port %q", d, port)
		}
	}
	return nil
}

// validateHealthCheck: a check the load balancer can run, at most once a
// second.
func validateHealthCheck(hc *api.HealthCheck) error {
	switch {
	case hc == nil:
		return nil
	case hc.Protocol != "TCP" && hc.Protocol != "HTTP":
		return badRequest("health check protocol %q: TCP or HTTP", hc.Protocol)
	case hc.Port <= 0 || hc.Port > 65535:
		return badRequest("health check port %d", hc.Port)
	case (hc.Protocol == "HTTP") != strings.HasPrefix(hc.Path, "/"):
		return badRequest("health check path %q: an HTTP check needs one, a TCP check none", hc.Path)
	case hc.Interval < 1 || hc.Timeout < 1 || hc.Healthy < 1 || hc.Unhealthy < 1:
		return badRequest("health check interval %ds, timeout %ds, thresholds %d and %d: each at least 1", hc.Interval, hc.Timeout, hc.Healthy, hc.Unhealthy)
	}
	return nil
}

func (s *Server) deleteLoadBalancer(r *http.Request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := r.PathValue("name")
	if _, ok := s.state.LoadBalancers[name]; !ok {
		return nil, notFound("no load balancer %s", name)
	}
	if lb := s.state.LoadBalancers[name]; !s.virtualLB(lb) {
		if err := s.opts.Backends.LoadBalancers.Delete(r.Context(), name); err != nil {
			return nil, err
		}
	}
	delete(s.state.LoadBalancers, name)
	return nil, s.persist()
}

func (s *Server) listRoutes(*http.Request) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sortedRoutes(), nil
}

func (s *Server) sortedRoutes() []api.Route {
	out := []api.Route{}
	for _, rt := range s.state.Routes {
		out = append(out, rt)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *Server) createRoute(r *http.Request) (any, error) {
	var rt api.Route
	if err := decode(r, &rt); err != nil {
		return nil, err
	}
	if err := s.checkRoute(r, rt); err != nil {
		return nil, err
	}
	rt.Name = r.PathValue("name")
	return nil, s.changeRoutes(r, func(routes map[string]api.Route) { routes[rt.Name] = rt })
}

func (s *Server) deleteRoute(r *http.Request) (any, error) {
	name := r.PathValue("name")
	s.mu.Lock()
	_, ok := s.state.Routes[name]
	s.mu.Unlock()
	if !ok {
		return nil, notFound("no route %s", name)
	}
	return nil, s.changeRoutes(r, func(routes map[string]api.Route) { delete(routes, name) })
}

// changeRoutes applies a change, programs the whole table, then saves it;
// if programming fails the change is undone.
func (s *Server) changeRoutes(r *http.Request, change func(map[string]api.Route)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := map[string]api.Route{}
	for k, v := range s.state.Routes {
		before[k] = v
	}
	change(s.state.Routes)
	if err := s.opts.Backends.Routes.Sync(r.Context(), s.sortedRoutes()); err != nil {
		s.state.Routes = before
		return err
	}
	return s.persist()
}
