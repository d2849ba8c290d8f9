// Package profiles says what each provider's cloud-controller-manager is,
// per Kubernetes minor, as data read from the provider's own source: the
// names it starts its controllers under, whether it honours leader
// migration, how it names nodes, ProviderIDs and load balancers, how nodes
// are initialised, and whether the minor's kube-controller-manager still
// has the provider in tree. Every fact names the module, file and text it
// was read from; source_test.go downloads those modules and fails when a
// fact no longer holds. The facts are the providers' own: each provider's
// package (providers/<name>/profile.go) registers its table here.
package profiles

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Source is where a fact was read: a file (or, for a directory, its
// non-test Go files together) of a module release, and regular expressions
// that match there exactly because the fact holds.
type Source struct {
	// Module is path@version; "" is the profile's own Module, and Here
	// is this repository (the simulated cloud's facts).
	Module string
	// File is a slash-separated path inside the module.
	File string
	// Evidence must all match File; with Absent, none may (and an Absent
	// fact without evidence says File does not exist).
	Evidence []string
	Absent   bool
}

// Here is this repository's root as a Source.Module.
const Here = "."

// Fact is one thing a provider's code does, with where it was read: every
// source must hold.
type Fact[T any] struct {
	Value T
	From  []Source
}

// Sources are where the fact was read, for the test that finds every
// fact of a profile.
func (f Fact[T]) Sources() []Source { return f.From }

// CCM is a provider's cloud-controller-manager as its main builds it.
type CCM struct {
	// Controllers are the keys its app starts controllers under: the
	// names a leader-migration filter compares, where it has one.
	Controllers Fact[[]string]
	// Aliases are other names --controllers accepts (alias → key).
	Aliases Fact[map[string]string]
	// LeaderMigration: --enable-leader-migration changes what it runs.
	// A CCM that accepts the flag and ignores it starts every controller
	// under its own lease alone, whatever the kube-controller-manager
	// holds.
	LeaderMigration Fact[bool]
	// Disabled are the keys "*" in --controllers leaves off.
	Disabled Fact[[]string]
	// NodeIPAM is its node-IPAM controller's key, "" when it has none.
	NodeIPAM Fact[string]
	// NodeInit is what initialises nodes (sets ProviderID, addresses,
	// removes the uninitialized taint).
	NodeInit Fact[string]
}

// Naming is how the provider names what the migration must keep.
type Naming struct {
	// ProviderID is the form of spec.providerID.
	ProviderID Fact[string]
	// Node is how a kubelet with the provider names its Node.
	Node Fact[string]
	// LoadBalancer is how a Service's load balancer is named.
	LoadBalancer Fact[string]
}

// Profile is one provider at one Kubernetes minor.
type Profile struct {
	// Provider is handover's name of the provider (--provider): aws and
	// azure as --cloud-provider names them; simulated for its own cloud.
	Provider string
	// Minor is the Kubernetes minor, "1.27".
	Minor string
	// Module is the provider release the facts are read from
	// (path@version): the newest patch of the minor the module proxy
	// serves.
	Module string
	// InTree: the minor's kube-controller-manager and kubelet still have
	// the provider built in, so a migration to this minor's CCM has an
	// in-tree side.
	InTree Fact[bool]
	CCM    CCM
	Naming Naming
}

// Key names a profile: provider@minor.
func (p Profile) Key() string { return p.Provider + "@" + p.Minor }

// registry holds every provider's profiles by key.
var registry = struct {
	sync.RWMutex
	byKey map[string]Profile
}{byKey: map[string]Profile{}}

// Register adds a provider's profiles; its package calls it when it is
// initialised, so they are there before anything looks one up. Two
// profiles under one key is a programming error.
func Register(ps ...Profile) {
	registry.Lock()
	defer registry.Unlock()
	for _, p := range ps {
		if _, dup := registry.byKey[p.Key()]; dup {
			panic("profiles: " + p.Key() + " registered twice")
		}
		registry.byKey[p.Key()] = p
	}
}

// All returns every profile, ordered by provider then minor.
func All() []Profile {
	registry.RLock()
	out := slices.Collect(maps.Values(registry.byKey))
	registry.RUnlock()
	slices.SortFunc(out, func(a, b Profile) int {
		if c := strings.Compare(a.Provider, b.Provider); c != 0 {
			return c
		}
		return minorCompare(a.Minor, b.Minor)
	})
	return out
}

// Providers lists the providers that have profiles.
func Providers() []string {
	var out []string
	for _, p := range All() {
		if !slices.Contains(out, p.Provider) {
			out = append(out, p.Provider)
		}
	}
	return out
}

// Lookup finds a provider's profile for a Kubernetes version ("1.27",
// "v1.27.3" or "1.27.3").
func Lookup(provider, version string) (Profile, error) {
	minor := Minor(version)
	registry.RLock()
	p, ok := registry.byKey[provider+"@"+minor]
	registry.RUnlock()
	if ok {
		return p, nil
	}
	var minors []string
	for _, q := range All() {
		if q.Provider == provider {
			minors = append(minors, q.Minor)
		}
	}
	if len(minors) == 0 {
		return Profile{}, fmt.Errorf("no provider profile %q (known: %s)", provider, strings.Join(Providers(), ", "))
	}
	return Profile{}, fmt.Errorf("no %s profile for Kubernetes %s (profiles for %s)", provider, minor, strings.Join(minors, ", "))
}

// Minor is the major.minor of a version string.
func Minor(version string) string {
	v := strings.TrimPrefix(version, "v")
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return v
	}
	return parts[0] + "." + parts[1]
}

// AtLeast says whether minor ("1.28") is since or later: a profile's
// facts change from the minor whose code changed.
func AtLeast(minor, since string) bool { return minorCompare(minor, since) >= 0 }

func minorCompare(a, b string) int {
	var am, an, bm, bn int
	fmt.Sscanf(a, "%d.%d", &am, &an)
	fmt.Sscanf(b, "%d.%d", &bm, &bn)
	if am != bm {
		return am - bm
	}
	return an - bn
}
