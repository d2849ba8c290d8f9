package simcloud

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/handover-sh/handover/simulate/cloud/api"
)

// state is what the cloud remembers across restarts.
type state struct {
	LoadBalancers map[string]api.LoadBalancer `json:"loadBalancers"`
	Routes        map[string]api.Route        `json:"routes"`
	// Terminated instances stay gone even if their container lingers.
	Terminated map[string]bool `json:"terminated"`
	Faults     api.Faults      `json:"faults"`
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
	return &state{LoadBalancers: map[string]api.LoadBalancer{}, Routes: map[string]api.Route{}, Terminated: map[string]bool{}, PodCIDRs: map[string]string{}, Virtual: map[string]api.Instance{}}
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
	raw, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, raw, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
