// Package waits is the one table of how long handover waits for what, and
// how often it looks: each package registers its own waits by name at
// init, a rehearsal file's `intervals:` overrides any of them by name (as
// cluster-api's e2e configuration does), and `rehearse --help` lists them
// all. A slower or faster cluster than the simulated one is exactly what a
// user tunes here.
package waits

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// Wait is one row of the table.
type Wait struct {
	Name    string
	Default time.Duration
	Doc     string // what it bounds, in a line
	Owner   string // the package that waits (set by Register)
}

var table = struct {
	sync.RWMutex
	m map[string]Wait
}{m: map[string]Wait{}}

// MinOverride and MaxOverride bound every override of a wait: below a
// second no Kubernetes object changes state, and no wait of a rehearsal
// of minutes is worth an hour (a run waiting years would hold its cluster
// and its runner as long). Every default lies between them too.
const (
	MinOverride = time.Second
	MaxOverride = time.Hour
)

// Register adds the waits of owner (a package path inside handover, for
// the help). A name registered twice, or a default not from MinOverride
// to MaxOverride, is a programming error.
func Register(owner string, ws ...Wait) {
	table.Lock()
	defer table.Unlock()
	for _, w := range ws {
		if _, dup := table.m[w.Name]; dup {
			panic("waits: " + w.Name + " registered twice")
		}
		if w.Default <= 0 {
			panic("waits: " + w.Name + " has no default")
		}
		if w.Default < MinOverride || w.Default > MaxOverride {
			panic("waits: " + w.Name + "'s default is out of the overrides' range")
		}
		w.Owner = owner
		table.m[w.Name] = w
	}
}

// Default is a registered wait's default; an unknown name is a programming
// error.
func Default(name string) time.Duration {
	table.RLock()
	defer table.RUnlock()
	w, ok := table.m[name]
	if !ok {
		panic("waits: no wait " + name)
	}
	return w.Default
}

// Table is every registered wait, sorted by owner, then name.
func Table() []Wait {
	table.RLock()
	defer table.RUnlock()
	out := slices.Collect(maps.Values(table.m))
	slices.SortFunc(out, func(a, b Wait) int {
		if c := strings.Compare(a.Owner, b.Owner); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// Validate rejects overrides of unknown names and durations not above
// zero or outside MinOverride to MaxOverride, naming each.
func Validate(overrides map[string]time.Duration) error {
	table.RLock()
	defer table.RUnlock()
	var errs []string
	for _, name := range slices.Sorted(maps.Keys(overrides)) {
		if _, ok := table.m[name]; !ok {
			errs = append(errs, fmt.Sprintf("intervals: no interval %q (known: %s)", name, strings.Join(slices.Sorted(maps.Keys(table.m)), ", ")))
		} else if d := overrides[name]; d <= 0 {
			errs = append(errs, fmt.Sprintf("intervals: %s must be positive, not %s", name, d))
		} else if d < MinOverride || d > MaxOverride {
			errs = append(errs, fmt.Sprintf("intervals: %s is %s, out of range: give from %s to %s", name, d, MinOverride, MaxOverride))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

type overridesKey struct{}

// WithOverrides carries a run's overrides (a rehearsal file's intervals:)
// to every package that waits under ctx: each run has its own, and
// nothing outlives it.
func WithOverrides(ctx context.Context, overrides map[string]time.Duration) context.Context {
	if len(overrides) == 0 {
		return ctx
	}
	return context.WithValue(ctx, overridesKey{}, maps.Clone(overrides))
}

// Of is the named wait under ctx: its override there, else its default.
func Of(ctx context.Context, name string) time.Duration {
	if o, ok := ctx.Value(overridesKey{}).(map[string]time.Duration); ok {
		if d, ok := o[name]; ok {
			return d
		}
	}
	return Default(name)
}
