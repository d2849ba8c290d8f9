package engine

import (
	"context"
	"sync"
)

var (
	setsMu sync.Mutex
	sets   = map[string]*Set{}
)

// Watch returns the process's Set of the containers labelled selector
// ("label=value"), shared by every caller so one event stream serves them
// all (like a shared informer).
func Watch(selector string) (*Set, error) {
	api, err := Client()
	if err != nil {
		return nil, err
	}
	setsMu.Lock()
	defer setsMu.Unlock()
	if s, ok := sets[selector]; ok {
		return s, nil
	}
	s := NewSet(context.Background(), api, selector)
	sets[selector] = s
	return s, nil
}
