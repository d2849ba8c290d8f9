package cloudserver

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// Virtual instances are machines of the cloud with no container behind
// them: the instances of simulated nodes (kwok's), so the cloud controllers
// do for hundreds of nodes the work they do for real ones without hundreds
// of kubelets on the machine. Their addresses are in VirtualSubnet, which
// nothing routes: load balancers list them as backends but carry traffic to
// container instances only, as a cloud's health checks would drop a
// backend that never answers.
const (
	VirtualSubnet = "10.250.0.0/16"
	VirtualType   = "sim.virtual"
	// VirtualLBSubnet holds the addresses of virtual load balancers.
	VirtualLBSubnet = "10.251.0.0/16"
)

// addVirtual creates a virtual instance (or returns the one of that name).
func (s *Server) addVirtual(r *http.Request) (any, error) {
	name := r.PathValue("name")
	if name == "" {
		return nil, badRequest("a virtual instance needs a name")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if in, ok := s.state.Virtual[name]; ok {
		return in, nil
	}
	ip, err := nthAddress(VirtualSubnet, len(s.state.Virtual))
	if err != nil {
		return nil, err
	}
	in := api.Instance{Name: name, ProviderID: s.opts.As.ProviderIDOf(s.opts.Cluster, name), Type: VirtualType,
		Region: Region, Zone: ZoneOf(name), State: api.StateRunning,
		Addresses: []api.Address{{Type: "InternalIP", Address: ip}, {Type: "Hostname", Address: name}}}
	s.state.Virtual[name] = in
	s.virtual.add(in)
	s.launched[name] = s.opts.Now()
	if err := s.persist(); err != nil {
		return nil, err
	}
	return in, nil
}

// nthAddress is the i-th address of cidr, skipping its network address.
func nthAddress(cidr string, i int) (string, error) {
	_, subnet, _ := net.ParseCIDR(cidr)
	ones, bits := subnet.Mask.Size()
	if i+1 >= 1<<(bits-ones)-1 {
		return "", &httpError{code: http.StatusConflict, msg: "subnet " + cidr + " is exhausted"}
	}
	ip := make(net.IP, 4)
	binary.BigEndian.PutUint32(ip, binary.BigEndian.Uint32(subnet.IP.To4())+uint32(i+1))
	return ip.String(), nil
}

// virtualInstances lists the live virtual instances by name. Callers hold
// s.mu.
func (s *Server) virtualInstances() []api.Instance {
	out := make([]api.Instance, 0, len(s.state.Virtual))
	for name, in := range s.state.Virtual {
		if !s.state.Terminated[name] {
			out = append(out, in)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// virtualIndex finds virtual instances without a walk of them all: the
// cloud controllers ask for one instance at a time, hundreds of times a
// sweep.
type virtualIndex struct {
	byID  map[string]string // ProviderID -> name
	addrs map[string]bool
}

func newVirtualIndex(vs map[string]api.Instance) virtualIndex {
	x := virtualIndex{byID: map[string]string{}, addrs: map[string]bool{}}
	for _, in := range vs {
		x.add(in)
	}
	return x
}

func (x virtualIndex) add(in api.Instance) {
	x.byID[in.ProviderID] = in.Name
	for _, a := range in.Addresses {
		x.addrs[a.Address] = true
	}
}

// virtualNamed is the live virtual instance of that name.
func (s *Server) virtualNamed(name string) (api.Instance, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.state.Virtual[name]
	return in, ok && !s.state.Terminated[name]
}

// virtualWithID is the live virtual instance of that ProviderID.
func (s *Server) virtualWithID(id string) (api.Instance, bool) {
	s.mu.Lock()
	name, ok := s.virtual.byID[id]
	s.mu.Unlock()
	if !ok {
		return api.Instance{}, false
	}
	return s.virtualNamed(name)
}

// realBackends is a load balancer as its data plane is programmed: backends
// at virtual addresses dropped (nothing answers there). Callers hold s.mu.
func (s *Server) realBackends(lb api.LoadBalancer) api.LoadBalancer {
	if len(s.virtual.addrs) == 0 {
		return lb
	}
	nodes := make([]string, 0, len(lb.Spec.Nodes))
	for _, n := range lb.Spec.Nodes {
		if !s.virtual.addrs[n] {
			nodes = append(nodes, n)
		}
	}
	lb.Spec.Nodes = nodes
	return lb
}

// AddVirtualInstance asks the cloud at c for a virtual instance: an admin
// call, as an operator's or an autoscaler's, never a cloud controller's.
func AddVirtualInstance(ctx context.Context, c *api.Client, name string) (api.Instance, error) {
	var in api.Instance
	if err := adminCall(ctx, c, http.MethodPut, "/v1/virtual-instances/"+url.PathEscape(name), &in); err != nil {
		return in, fmt.Errorf("adding virtual instance %s: %w", name, err)
	}
	return in, nil
}

// adminCall makes a call as handover, outside the cloud controllers' API.
func adminCall(ctx context.Context, c *api.Client, method, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, nil)
	if err != nil {
		return err
	}
	c.Sign(req)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var e api.Error
		_ = json.NewDecoder(resp.Body).Decode(&e)
		return &api.StatusError{Code: resp.StatusCode, Message: e.Message}
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// Virtual load balancers are those of the Services in a namespace handover
// named (a scale rehearsal's, in front of simulated pods): the cloud keeps
// them, addresses them and audits every call on them like any other, but
// runs no proxy behind the address — nothing there would answer, and a
// hundred proxy containers would cost the machine more than the cluster.
func (s *Server) addVirtualLBNamespace(r *http.Request) (any, error) {
	ns := r.PathValue("namespace")
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.state.VirtualLBNamespaces, ns) {
		s.state.VirtualLBNamespaces = append(s.state.VirtualLBNamespaces, ns)
	}
	return map[string]any{"namespaces": s.state.VirtualLBNamespaces}, s.persist()
}

// virtualLB says whether lb is virtual. Callers hold s.mu.
func (s *Server) virtualLB(lb api.LoadBalancer) bool {
	ns, _, _ := strings.Cut(lb.Spec.Service, "/")
	return slices.Contains(s.state.VirtualLBNamespaces, ns)
}

// ensureVirtualLB addresses a virtual load balancer: the address it has,
// or the next of VirtualLBSubnet. Callers hold s.mu.
func (s *Server) ensureVirtualLB(lb api.LoadBalancer) (string, error) {
	if lb.IP != "" {
		return lb.IP, nil
	}
	ip, err := nthAddress(VirtualLBSubnet, s.state.VirtualLBsMade)
	if err == nil {
		s.state.VirtualLBsMade++
	}
	return ip, err
}

// MakeLoadBalancersVirtual asks the cloud at c to run no proxy for the load
// balancers of Services in namespace.
func MakeLoadBalancersVirtual(ctx context.Context, c *api.Client, namespace string) error {
	var out map[string]any
	if err := adminCall(ctx, c, http.MethodPut, "/v1/virtual-lb-namespaces/"+url.PathEscape(namespace), &out); err != nil {
		return fmt.Errorf("making the load balancers of namespace %s virtual: %w", namespace, err)
	}
	return nil
}

// AuditAfter reads the audit at c from position n on (AuditAfter(ctx, c,
// 0) is all of it) and returns the position to read from next.
func AuditAfter(ctx context.Context, c *api.Client, n int) ([]api.AuditEntry, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.BaseURL+"/v1/audit?after="+strconv.Itoa(n), nil)
	if err != nil {
		return nil, n, err
	}
	c.Sign(req)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, n, fmt.Errorf("reading the cloud's audit: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, n, fmt.Errorf("reading the cloud's audit: %s", resp.Status)
	}
	next, err := strconv.Atoi(resp.Header.Get(HeaderAuditNext))
	if err != nil {
		return nil, n, fmt.Errorf("reading the cloud's audit: no %s: the cloud is older than this handover", HeaderAuditNext)
	}
	var out []api.AuditEntry
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, n, fmt.Errorf("reading the cloud's audit: %w", err)
	}
	return out, next, nil
}
