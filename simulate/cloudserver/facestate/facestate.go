// Package facestate keeps what a provider face alone has (AWS's tags and
// security groups, Azure's load balancers and public IPs): under a lock,
// saved as JSON after every change, so that a restarted cloud answers as
// it did.
package facestate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/handover-sh/handover/internal/privatefs"
)

// Store is one face's state.
type Store[T any] struct {
	mu   sync.Mutex
	path string // "" keeps it in memory
	what string // "the AWS state", for errors
	data T
}

// Open reads the state saved at path ("" or a missing file: a new one);
// fill makes what a new or older file lacks (nil maps) usable.
func Open[T any](path, what string, fill func(*T)) (*Store[T], error) {
	s := &Store[T]{path: path, what: what}
	if path != "" {
		raw, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("reading %s: %w", what, err)
		default:
			if err := json.Unmarshal(raw, &s.data); err != nil {
				return nil, fmt.Errorf("%s %s is corrupt: %w", what, path, err)
			}
		}
	}
	fill(&s.data)
	return s, nil
}

// Change applies f under the lock and saves the state; a failed f changes
// nothing on disk.
func (s *Store[T]) Change(f func(*T) error) error {
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
		return fmt.Errorf("writing %s: %w", s.what, err)
	}
	return nil
}

// Read calls f with the state under the lock.
func (s *Store[T]) Read(f func(*T)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.data)
}
