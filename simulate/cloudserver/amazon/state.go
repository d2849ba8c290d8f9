package amazon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/internal/privatefs"
)

// state is what only AWS has, kept across restarts: tags added to
// resources, security groups, and the instances whose source/destination
// check was turned off.
type state struct {
	mu   sync.Mutex
	path string // "" keeps it in memory
	data stateData
}

type stateData struct {
	// Tags added by CreateTags, by resource ID (a resource's own tags —
	// an instance's cluster tag and Name — are not kept here).
	Tags map[string]map[string]string `json:"tags"`
	// Deleted are tags of a resource's own removed by DeleteTags.
	Deleted map[string][]string `json:"deleted,omitempty"`
	// Groups are the security groups callers created, by ID.
	Groups map[string]*ec2.SecurityGroup `json:"groups"`
	// NoSourceDestCheck are instances whose check is off.
	NoSourceDestCheck map[string]bool `json:"noSourceDestCheck"`
	// LoadBalancers are the classic load balancers by name.
	LoadBalancers map[string]*classicLB `json:"loadBalancers"`
	// Made counts the IDs handed out, so that each is new.
	Made int `json:"made"`
	// Seen are the instances described so far, by name; Gone says since
	// when one is no longer the cloud's (terminated, or removed).
	Seen map[string]seenInstance `json:"seen,omitempty"`
}

// seenInstance is what EC2 still says of an instance once terminated.
type seenInstance struct {
	Zone string    `json:"zone"`
	Type string    `json:"type"`
	Gone time.Time `json:"gone,omitzero"`
}

func openState(path string) (*state, error) {
	s := &state{path: path, data: stateData{Tags: map[string]map[string]string{}, Deleted: map[string][]string{},
		Groups: map[string]*ec2.SecurityGroup{}, NoSourceDestCheck: map[string]bool{}, LoadBalancers: map[string]*classicLB{},
		Seen: map[string]seenInstance{}}}
	if path == "" {
		return s, nil
	}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the AWS state: %w", err)
	}
	if err := json.Unmarshal(raw, &s.data); err != nil {
		return nil, fmt.Errorf("the AWS state %s is corrupt: %w", path, err)
	}
	if s.data.LoadBalancers == nil {
		s.data.LoadBalancers = map[string]*classicLB{}
	}
	if s.data.Seen == nil {
		s.data.Seen = map[string]seenInstance{}
	}
	return s, nil
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
		return fmt.Errorf("writing the AWS state: %w", err)
	}
	return nil
}

// read calls f with the state under the lock.
func (s *state) read(f func(*stateData)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.data)
}

// tagsOf merges a resource's own tags with those added and removed since.
func (d *stateData) tagsOf(id string, own map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range own {
		out[k] = v
	}
	for _, k := range d.Deleted[id] {
		delete(out, k)
	}
	for k, v := range d.Tags[id] {
		out[k] = v
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// clone is a deep copy through JSON, the form the state is kept in.
func clone[T any](v *T) *T {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("amazon: the state cannot be copied: %v", err))
	}
	out := new(T)
	if err := json.Unmarshal(raw, out); err != nil {
		panic(fmt.Sprintf("amazon: the state cannot be copied: %v", err))
	}
	return out
}
