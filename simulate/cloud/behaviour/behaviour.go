// Package behaviour says how each provider's cloud-controller-manager
// differs from upstream's where a migration can tell, for the simulated
// manager to behave as it (simulate/cloud/ccmbase). It imports nothing, so
// handover's own packages can validate a provider name against it. The
// facts are read from each provider's source in providers/profiles; a test
// there keeps these rows equal to them.
package behaviour

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Behaviour is one provider's manager.
type Behaviour struct {
	// IgnoresLeaderMigration: the manager accepts --enable-leader-migration
	// and --leader-migration-config and has no filter that reads them, so
	// it runs every controller under its own lease.
	IgnoresLeaderMigration bool
	// NodeIPAM is its node-IPAM controller's key; "" keeps the name of the
	// minor's kube-controller-manager.
	NodeIPAM string
}

// Of are the providers the simulated manager can behave as, by the name a
// cluster's cloud-config gives; "" and "simulated" are upstream's manager.
var Of = map[string]Behaviour{
	"":          {},
	"simulated": {},
	// sigs.k8s.io/cloud-provider-azure: its own app package, no
	// leader-migration code; node IPAM under "node-ipam".
	"azure": {IgnoresLeaderMigration: true, NodeIPAM: "node-ipam"},
}

// Lookup finds the behaviour of a provider the simulated manager can
// imitate, or says which it can.
func Lookup(name string) (Behaviour, error) {
	if b, ok := Of[name]; ok {
		return b, nil
	}
	known := slices.DeleteFunc(slices.Sorted(maps.Keys(Of)), func(n string) bool { return n == "" })
	return Behaviour{}, fmt.Errorf("%q: the simulated cloud-controller-manager can behave as %s only", name, strings.Join(known, ", "))
}
