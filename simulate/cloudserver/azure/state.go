package azure

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/handover-sh/handover/internal/privatefs"
)

// state is what only Azure has, kept across restarts.
type state struct {
	mu   sync.Mutex
	path string // "" keeps it in memory
	data stateData
}

type stateData struct {
	// LoadBalancers, PublicIPs and SecurityGroups are those resources as
	// their last PUT left them, by name in lower case (ARM's names are
	// case-insensitive), with the fields ARM sets itself.
	LoadBalancers  map[string]resource `json:"loadBalancers"`
	PublicIPs      map[string]resource `json:"publicIPs"`
	SecurityGroups map[string]resource `json:"securityGroups"`
	// Pools are the backend pools each interface's IP configuration is in,
	// by interface name (lower case): the pools' IDs as the interface's
	// PUT named them.
	Pools map[string][]string `json:"pools"`
	// Addresses counts the public addresses handed out, so each is new.
	Addresses int `json:"addresses"`
	// Seen are the primary addresses of the instances listed so far, by
	// name: a route to an instance that is gone still shows its next hop.
	Seen map[string]string `json:"seen"`
}

// resource is an ARM resource as JSON decodes it.
type resource = map[string]any

func openState(path string) (*state, error) {
	s := &state{path: path}
	if path != "" {
		raw, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("reading the Azure state: %w", err)
		default:
			if err := json.Unmarshal(raw, &s.data); err != nil {
				return nil, fmt.Errorf("the Azure state %s is corrupt: %w", path, err)
			}
		}
	}
	s.data.fill()
	return s, nil
}

// fill makes every map of a new or older state.
func (d *stateData) fill() {
	for _, m := range []*map[string]resource{&d.LoadBalancers, &d.PublicIPs, &d.SecurityGroups} {
		if *m == nil {
			*m = map[string]resource{}
		}
	}
	if d.Pools == nil {
		d.Pools = map[string][]string{}
	}
	if d.Seen == nil {
		d.Seen = map[string]string{}
	}
}

// change applies f under the lock and saves the state.
func (s *state) change(f func(*stateData) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := f(&s.data); err != nil {
		return err
	}
	if s.path == "" {
		return nil
	}
	raw, err := json.MarshalIndent(s.data, "", "  ")
	if err != nil {
		return err
	}
	if err := privatefs.WriteFile(s.path, raw); err != nil {
		return fmt.Errorf("writing the Azure state: %w", err)
	}
	return nil
}

// read calls f with the state under the lock.
func (s *state) read(f func(*stateData)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.data)
}

// clone is a deep copy through JSON, the form the state is kept in.
func clone[T any](v T) T {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("azure: the state cannot be copied: %v", err))
	}
	var out T
	if err := json.Unmarshal(raw, &out); err != nil {
		panic(fmt.Sprintf("azure: the state cannot be copied: %v", err))
	}
	return out
}
