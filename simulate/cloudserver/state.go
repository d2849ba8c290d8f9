package cloudserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// state is what the cloud remembers across restarts.
type state struct {
	LoadBalancers map[string]api.LoadBalancer `json:"loadBalancers"`
	Routes        map[string]api.Route        `json:"routes"`
	// Terminated instances stay gone even if their container lingers.
	Terminated map[string]bool `json:"terminated"`
	// Terminations are when instances were terminated, each with the
	// instance as it was then: the lag knob still answers it so for a
	// while. Pruned after MaxLag; absent from older state files.
	Terminations map[string]termination `json:"terminations,omitempty"`
	Faults       api.Faults             `json:"faults"`
	// PodCIDRs are the instances' pod ranges, when the cloud does IPAM.
	PodCIDRs map[string]string `json:"podCIDRs"`
	// Virtual are the instances with no container behind them.
	Virtual map[string]api.Instance `json:"virtual,omitempty"`
	// VirtualLBNamespaces: load balancers of Services there run no proxy;
	// VirtualLBsMade counts the addresses given them.
	VirtualLBNamespaces []string `json:"virtualLBNamespaces,omitempty"`
	VirtualLBsMade      int      `json:"virtualLBsMade,omitempty"`
}

func newState() *state {
	return &state{LoadBalancers: map[string]api.LoadBalancer{}, Routes: map[string]api.Route{}, Terminated: map[string]bool{},
		Terminations: map[string]termination{}, PodCIDRs: map[string]string{}, Virtual: map[string]api.Instance{}}
}

func loadState(path string) (*state, error) {
	s := newState()
	if path == "" {
		return s, nil
	}
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading simcloud state: %w", err)
	}
	if err := json.Unmarshal(raw, s); err != nil {
		return nil, fmt.Errorf("simcloud state %s is corrupt: %w", path, err)
	}
	if s.LoadBalancers == nil {
		s.LoadBalancers = map[string]api.LoadBalancer{}
	}
	if s.Routes == nil {
		s.Routes = map[string]api.Route{}
	}
	if s.Terminated == nil {
		s.Terminated = map[string]bool{}
	}
	if s.Terminations == nil {
		s.Terminations = map[string]termination{}
	}
	if s.PodCIDRs == nil {
		s.PodCIDRs = map[string]string{}
	}
	if s.Virtual == nil {
		s.Virtual = map[string]api.Instance{}
	}
	return s, nil
}

// save writes the state atomically.
func (s *state) save(path string) error {
	if path == "" {
		return nil
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if err := privatefs.MkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	return privatefs.WriteFileMode(path, raw, 0o644)
}

// saveEvery bounds how often the state is written: at scale it holds
// hundreds of instances, routes and load balancers listing hundreds of
// backends, and the managers change it several times a second.
const saveEvery = 200 * time.Millisecond

// persist has the state written within saveEvery, once however many
// changes come meanwhile; a write that failed is reported to the change
// after it (and retried with it). Callers hold s.mu.
func (s *Server) persist() error {
	if s.opts.StatePath == "" {
		return nil
	}
	err := s.saveErr
	s.saveErr = nil
	if !s.dirty {
		s.dirty = true
		time.AfterFunc(saveEvery, s.flush)
	}
	return err
}

// flush writes the state if it changed.
func (s *Server) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.dirty {
		return
	}
	s.dirty = false
	if err := s.state.save(s.opts.StatePath); err != nil {
		s.saveErr = fmt.Errorf("saving the cloud's state: %w", err)
	}
}
