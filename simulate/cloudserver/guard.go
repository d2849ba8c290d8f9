package cloudserver

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// MaxRequestBody bounds a request body. The largest real one is a load
// balancer's spec with every node's address (500 simulated nodes: ~10 KiB).
const MaxRequestBody = 1 << 20

// NewToken returns a fresh cluster credential: 32 random bytes, hex.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generating the cloud's token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// guard refuses a call without one of the cloud's tokens before anything
// reads it: a refused call is not audited, so a caller without a token
// cannot write a line into the evidence under another component's name.
// It bounds the body of every call it lets through.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Token != "" && !s.carries(r, s.opts.Token) && !s.carries(r, s.opts.AdminToken) {
			s.refused.Add(1)
			w.Header().Set("WWW-Authenticate", `Bearer realm="simcloud"`)
			writeJSON(w, http.StatusUnauthorized, api.Error{Message: "this cloud needs the cluster's token (Authorization: Bearer, from its cloud-config)"})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxRequestBody)
		next.ServeHTTP(w, r)
	})
}

// adminOnly refuses, unaudited, an admin call without the admin token: a
// node holds the cluster's token, and must not arm faults, terminate
// instances or read the audit.
func (s *Server) adminOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Token != "" && !s.carries(r, s.opts.AdminToken) {
			s.refused.Add(1)
			writeJSON(w, http.StatusForbidden, api.Error{Message: "this call is the host's: it needs the cloud's admin token, which no node holds"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// carries: r's Authorization is the bearer token, compared in constant time.
func (s *Server) carries(r *http.Request, token string) bool {
	return subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+token)) == 1
}

// checkTokens: both tokens or neither (in-process tests), and two
// different ones.
func (o Options) checkTokens() error {
	switch {
	case o.Token == "" && o.AdminToken == "":
		return nil
	case o.Token == "" || o.AdminToken == "":
		return errors.New("simcloud: the cluster's token and the admin token go together")
	case o.Token == o.AdminToken:
		return errors.New("simcloud: the admin token must differ from the cluster's token, which every node holds")
	}
	return nil
}

// Refused is how many calls the cloud refused for want of its token (or,
// on an admin route, of the admin token).
func (s *Server) Refused() int64 { return s.refused.Load() }

// checkRoute keeps a route inside what the cloud's route table is for: a
// pod range of the cluster's pod network, sent to one of its instances.
func (s *Server) checkRoute(r *http.Request, rt api.Route) error {
	_, dst, err := net.ParseCIDR(rt.DestinationCIDR)
	if err != nil {
		return badRequest("destinationCIDR %q: %v", rt.DestinationCIDR, err)
	}
	if pn := s.opts.PodNetwork; pn != nil && !containsNet(pn, dst) {
		return badRequest("destinationCIDR %s is outside the cluster's pod network %s", dst, pn)
	}
	if rt.Blackhole {
		return nil
	}
	if in, ok := s.virtualNamed(rt.TargetInstance); ok {
		_, err := s.seenFrom(r, in, rt.TargetInstance)
		return err
	}
	if _, err := s.findInstance(r, rt.TargetInstance, func(in api.Instance) bool { return in.Name == rt.TargetInstance }); err != nil {
		var he *httpError
		if errors.As(err, &he) && he.fault != "" {
			return err // there, but not to these credentials
		}
		return badRequest("route target %q is not an instance of this cluster", rt.TargetInstance)
	}
	return nil
}

func containsNet(outer, inner *net.IPNet) bool {
	oo, ob := outer.Mask.Size()
	io, ib := inner.Mask.Size()
	return ob == ib && io >= oo && outer.Contains(inner.IP)
}

// checkBackends keeps a load balancer's backends on the cluster's
// instances: addresses the cloud gave its instances, real or virtual. An
// instance terminated a moment ago still counts (the service controller
// learns of it only when its Node goes), so addresses once seen are kept.
func (s *Server) checkBackends(r *http.Request, spec api.LoadBalancerSpec) error {
	unknown := s.unknownAddresses(spec.Nodes)
	if len(unknown) == 0 {
		return nil
	}
	if _, err := s.instances(r.Context()); err != nil { // refreshes what was seen
		return err
	}
	if unknown = s.unknownAddresses(unknown); len(unknown) > 0 {
		return badRequest("backend %s is not an address of an instance of this cluster", strings.Join(unknown, ", "))
	}
	return nil
}

func (s *Server) unknownAddresses(addrs []string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, a := range addrs {
		if !s.seen[a] && !s.virtual.addrs[a] {
			out = append(out, a)
		}
	}
	return out
}

// see remembers the addresses of instances the backend listed. Callers
// hold s.mu.
func (s *Server) see(all []api.Instance) {
	for _, in := range all {
		for _, a := range in.Addresses {
			if net.ParseIP(a.Address) != nil {
				s.seen[a.Address] = true
			}
		}
	}
}
