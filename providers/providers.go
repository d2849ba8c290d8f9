// Package providers is the seam between handover and the clouds it
// rehearses: a provider is a package of its own under this one that
// registers one value (a Provider), and nothing outside that package knows
// its name. What every provider has is small (Provider); what only some
// have is a capability, asked as (X, bool) with As, as
// k8s.io/cloud-provider's Interface asks for LoadBalancer() or Routes().
// The capabilities the procedures and the lint use are declared here; the
// simulated cloud declares those it wires into a cluster
// (simulate/cloudcluster.Cloud).
package providers

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Provider is a cloud handover can rehearse a migration to.
type Provider interface {
	// Name is handover's name of it: --provider, and its profiles'.
	Name() string
	// Runs says whose code a rehearsal runs for it.
	Runs() Runs
}

// Runs is whose code the managers and kubelets run for a provider.
type Runs int

const (
	// HandoversCode is the simulated cloud's own provider, compiled into
	// every node image's managers and kubelets: the default provider.
	HandoversCode Runs = iota
	// OwnCode is the provider's own code, in tree and in its
	// cloud-controller-manager, against the simulated cloud's face of its
	// API.
	OwnCode
	// Imitated is the simulated provider's manager behaving as the
	// provider's does, as its profile says (simulate/cloudprovider/behaviour).
	Imitated
)

func (r Runs) String() string {
	return [...]string{"handover's simulated provider", "its own code", "an imitation"}[r]
}

// As asks p for a capability: the value and true when p has it.
func As[T any](p Provider) (T, bool) {
	c, ok := p.(T)
	return c, ok
}

var registry = struct {
	sync.RWMutex
	m map[string]Provider
}{m: map[string]Provider{}}

// Register makes a provider available under its name; a second provider
// of one name is a wiring mistake no input can cause.
func Register(p Provider) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.m[p.Name()]; dup {
		panic(fmt.Sprintf("providers: %q registered twice", p.Name()))
	}
	registry.m[p.Name()] = p
}

// Lookup finds a registered provider.
func Lookup(name string) (Provider, error) {
	registry.RLock()
	defer registry.RUnlock()
	if p, ok := registry.m[name]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("no provider %q (handover has %s)", name, strings.Join(namesLocked(), ", "))
}

// Names are the registered providers' names, sorted.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	names := make([]string, 0, len(registry.m))
	for n := range registry.m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// All are the registered providers in name order.
func All() []Provider {
	var out []Provider
	for _, n := range Names() {
		p, _ := Lookup(n)
		out = append(out, p)
	}
	return out
}

// NamesWith are the names of the registered providers that have
// capability T, in name order: what a message offers when only they do.
func NamesWith[T any]() []string {
	var out []string
	for _, p := range All() {
		if _, ok := As[T](p); ok {
			out = append(out, p.Name())
		}
	}
	return out
}

// Default is the provider a rehearsal runs when none is named: the one
// that runs handover's code. A program that registered none is wired
// wrong (it did not import providers/all), which no input can cause.
func Default() Provider {
	for _, p := range All() {
		if p.Runs() == HandoversCode {
			return p
		}
	}
	panic("providers: no provider runs handover's code: import github.com/handover-sh/handover/providers/all")
}

// IsDefault says whether name is the default provider's, or "" (none
// named).
func IsDefault(name string) bool { return name == "" || name == Default().Name() }
