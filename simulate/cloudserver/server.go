package cloudserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
)

// Options configure a Server.
type Options struct {
	Backends  Backends
	StatePath string // "" keeps state in memory only
	AuditPath string // "" keeps the audit in memory only
	Now       func() time.Time
	Seed      int64 // for the error-rate dice
	// Cluster names the cluster in the ProviderIDs of virtual instances,
	// formed as As forms them.
	Cluster string
	As      behaviour.Behaviour
	// Token, when set, is required of every call (Authorization: Bearer).
	// Only in-process tests leave it empty.
	Token string
	// AdminToken is the host's: only it may call the admin routes (the
	// fault knobs, terminating an instance, virtual instances and load
	// balancers, the audit), and it may call every other. It is never
	// given to a node. Required with Token, and other than it.
	AdminToken string
	// PodNetwork, when set, bounds the routes the cloud accepts.
	PodNetwork *net.IPNet
	// Registry is the cloud's container registry: its tokens are signed
	// with TokenKey, which the registry checks them with. Zero: the cloud
	// has no registry and refuses token calls.
	Registry Registry
}

// Server is the simcloud API.
type Server struct {
	opts    Options
	mu      sync.Mutex // guards state and backend changes
	state   *state
	virtual virtualIndex // of state.Virtual
	audit   *auditLog
	faults  *injector
	// dirty: the state changed since it was last written; saveErr: the
	// last write failed (the next change reports it).
	dirty   bool
	saveErr error
	seen    map[string]bool // addresses instances were listed with
	// launched dates the instances for the lag knob (dateLaunches).
	launched map[string]time.Time
	refused  atomic.Int64 // calls without the token
}

// New loads saved state and opens the audit log.
func New(o Options) (*Server, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := o.checkTokens(); err != nil {
		return nil, err
	}
	st, err := loadState(o.StatePath)
	if err != nil {
		return nil, err
	}
	audit, err := openAudit(o.AuditPath)
	if err != nil {
		return nil, err
	}
	return &Server{opts: o, state: st, virtual: newVirtualIndex(st.Virtual), audit: audit, faults: newInjector(st.Faults, o.Seed),
		seen: map[string]bool{}, launched: map[string]time.Time{}}, nil
}

// Close writes the state and closes the audit log.
func (s *Server) Close() error {
	s.flush()
	s.mu.Lock()
	err := s.saveErr
	s.mu.Unlock()
	return errors.Join(err, s.audit.close())
}

// Handler serves the API.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	cloud := func(op string, h func(*http.Request) (any, error)) http.Handler {
		return s.call(op, true, h)
	}
	// The admin routes are handover's on the host: no fault knob reaches
	// them, and a node's token is refused there.
	admin := func(op string, h func(*http.Request) (any, error)) http.Handler {
		return s.adminOnly(s.call(op, false, h))
	}
	mux.Handle("GET /v1/instances", cloud("ListInstances", s.listInstances))
	mux.Handle("GET /v1/instances/{name}", cloud("GetInstance", s.getInstance))
	mux.Handle("GET /v1/instances-by-provider-id/{id}", cloud("GetInstanceByProviderID", s.getInstanceByProviderID))
	mux.Handle("DELETE /v1/instances/{name}", admin("TerminateInstance", s.terminateInstance))
	mux.Handle("PUT /v1/virtual-instances/{name}", admin("AddVirtualInstance", s.addVirtual))
	mux.Handle("PUT /v1/virtual-lb-namespaces/{namespace}", admin("AddVirtualLBNamespace", s.addVirtualLBNamespace))
	mux.Handle("PUT /v1/instances/{name}/pod-cidr", cloud("AllocatePodCIDR", s.allocatePodCIDR))
	mux.Handle("GET /v1/loadbalancers", cloud("ListLoadBalancers", s.listLoadBalancers))
	mux.Handle("GET /v1/loadbalancers/{name}", cloud("GetLoadBalancer", s.getLoadBalancer))
	mux.Handle("PUT /v1/loadbalancers/{name}", cloud("EnsureLoadBalancer", s.ensureLoadBalancer))
	mux.Handle("PATCH /v1/loadbalancers/{name}", cloud("UpdateLoadBalancer", s.updateLoadBalancer))
	mux.Handle("DELETE /v1/loadbalancers/{name}", cloud("DeleteLoadBalancer", s.deleteLoadBalancer))
	mux.Handle("POST /v1/registry/token", cloud("GetRegistryToken", s.registryToken))
	// A face's own answer (a subnet, a tag, a security group, ECR's
	// token): the face asks here first, under the caller's name for it, so
	// the knobs and the audit reach every call a provider makes.
	mux.Handle("POST /v1/face-calls/{op}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := r.PathValue("op")
		if !faceOp.MatchString(op) {
			writeJSON(w, http.StatusBadRequest, api.Error{Message: fmt.Sprintf("face call %q: want SERVICE:ACTION", op)})
			return
		}
		cloud(op, func(*http.Request) (any, error) { return nil, nil }).ServeHTTP(w, r)
	}))
	// A face's refusal of its own (the caller's IAM policy): recorded in
	// the audit with the fault that refused it, no knob deciding.
	mux.Handle("POST /v1/face-refusals/{op}", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op, fault := r.PathValue("op"), r.URL.Query().Get("fault")
		if !faceOp.MatchString(op) || !faultName.MatchString(fault) {
			writeJSON(w, http.StatusBadRequest, api.Error{Message: fmt.Sprintf("face refusal %q (fault %q): want SERVICE:ACTION and a fault's name", op, fault)})
			return
		}
		s.call(op, false, func(*http.Request) (any, error) {
			return nil, &httpError{code: http.StatusForbidden, msg: "refused by the face: " + fault, fault: fault}
		}).ServeHTTP(w, r)
	}))
	mux.Handle("GET /v1/routes", cloud("ListRoutes", s.listRoutes))
	mux.Handle("PUT /v1/routes/{name}", cloud("CreateRoute", s.createRoute))
	mux.Handle("DELETE /v1/routes/{name}", cloud("DeleteRoute", s.deleteRoute))
	mux.Handle("GET /v1/faults", admin("GetFaults", func(*http.Request) (any, error) { return s.faults.get(), nil }))
	mux.Handle("PUT /v1/faults", admin("SetFaults", s.setFaults))
	mux.Handle("GET /v1/audit", s.adminOnly(http.HandlerFunc(s.getAudit)))
	return s.guard(mux)
}

// faceOp is a face call's operation: the API's name of the service and of
// the action, as the deny knob names it (ec2:DescribeSubnets,
// arm:Microsoft.Network/networkSecurityGroups/read).
var faceOp = regexp.MustCompile(`^[a-z0-9-]{1,32}:[A-Za-z0-9./_-]{1,160}$`)

// faultName names what refused a call (iam).
var faultName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// httpError is an error with a status code; fault names the knob that
// caused it, if one did.
type httpError struct {
	code  int
	msg   string
	fault string
}

func (e *httpError) Error() string { return e.msg }

func notFound(format string, args ...any) error {
	return &httpError{code: http.StatusNotFound, msg: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) error {
	return &httpError{code: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// call wraps a handler with fault injection (for cloud operations) and
// records every call in the audit log.
func (s *Server) call(op string, injectable bool, h func(*http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entry := api.AuditEntry{Time: s.opts.Now(), Component: r.Header.Get(api.HeaderComponent),
			Controller: r.Header.Get(api.HeaderController), Node: r.Header.Get(api.HeaderNode),
			UserAgent: r.UserAgent(), Operation: op, Resource: r.PathValue("name")}
		if entry.Resource == "" {
			entry.Resource = r.PathValue("id")
		}
		status, body := s.serve(r, op, injectable, h, &entry)
		entry.Status = status
		s.audit.record(entry)
		writeJSON(w, status, body)
	})
}

func (s *Server) serve(r *http.Request, op string, injectable bool, h func(*http.Request) (any, error), entry *api.AuditEntry) (int, any) {
	if injectable {
		latency, code, knob := s.faults.decide(s.opts.Now(), op, entry.Component, entry.Node)
		if latency > 0 {
			select {
			case <-time.After(latency):
			case <-r.Context().Done():
			}
		}
		if code != 0 {
			entry.Fault = knob
			entry.Error = "injected " + knob
			return code, api.Error{Message: "injected fault: " + knob}
		}
	}
	out, err := h(r)
	if err == nil {
		if out == nil {
			return http.StatusNoContent, nil
		}
		return http.StatusOK, out
	}
	entry.Error = err.Error()
	var he *httpError
	if errors.As(err, &he) {
		entry.Fault = he.fault
		return he.code, api.Error{Message: he.msg}
	}
	return http.StatusInternalServerError, api.Error{Message: err.Error()}
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	if body == nil {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func decode(r *http.Request, into any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &httpError{code: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("request body over %d bytes", tooBig.Limit)}
		}
		return badRequest("malformed request body: %v", err)
	}
	return nil
}

func (s *Server) setFaults(r *http.Request) (any, error) {
	var f api.Faults
	if err := decode(r, &f); err != nil {
		return nil, err
	}
	for op, p := range f.ErrorRate {
		if p < 0 || p > 1 {
			return nil, badRequest("errorRate[%s] = %v: use a probability between 0 and 1", op, p)
		}
	}
	for component, ops := range f.Deny {
		if component == "" || len(ops) == 0 || slices.Contains(ops, "") {
			return nil, badRequest("deny[%q] = %q: name a caller component and the operations it is refused", component, ops)
		}
	}
	for component, where := range f.Scope {
		if component == "" || where == "" {
			return nil, badRequest("scope[%q] = %q: name a caller component and the region or zone its credentials see", component, where)
		}
	}
	if f.Lag.Duration < 0 || f.Lag.Duration > MaxLag {
		return nil, badRequest("lag %s: from 0s to %s", f.Lag.Duration, MaxLag)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.set(f)
	s.state.Faults = f
	return nil, s.persist()
}

// HeaderAuditNext is the position to ask the audit from next (?after=).
const HeaderAuditNext = "X-Simcloud-Audit-Next"

// getAudit answers ?after=N (the entries recorded after the first N, with
// the next position in HeaderAuditNext: what the observers follow) or
// ?since=T (the calls that began at T or later).
func (s *Server) getAudit(w http.ResponseWriter, r *http.Request) {
	if v := r.URL.Query().Get("after"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, api.Error{Message: "after: " + err.Error()})
			return
		}
		entries, next := s.audit.after(n)
		w.Header().Set(HeaderAuditNext, strconv.Itoa(next))
		writeJSON(w, http.StatusOK, entries)
		return
	}
	since := time.Time{}
	if v := r.URL.Query().Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, api.Error{Message: "since: " + err.Error()})
			return
		}
		since = t
	}
	writeJSON(w, http.StatusOK, s.audit.since(since))
}

// instances lists the backend's machines minus terminated ones, as they
// are: the cloud's own view (a caller's is lagged).
func (s *Server) instances(ctx context.Context) ([]api.Instance, error) {
	var all []api.Instance
	var launched map[string]time.Time
	var err error
	if l, ok := s.opts.Backends.Instances.(Launcher); ok {
		all, launched, err = l.ListLaunched(ctx)
	} else {
		all, err = s.opts.Backends.Instances.List(ctx)
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.see(all)
	s.dateLaunches(all, launched)
	out := []api.Instance{}
	for _, in := range all {
		if !s.state.Terminated[in.Name] {
			out = append(out, in)
		}
	}
	return append(out, s.virtualInstances()...), nil
}
