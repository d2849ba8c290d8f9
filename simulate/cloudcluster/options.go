package cloudcluster

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/handover-sh/handover/simulate/cloud/behaviour"
)

// Option changes how Create makes the cluster's cloud.
type Option func(*settings)

type settings struct{ profile string }

func newSettings(opts []Option) settings {
	var s settings
	for _, o := range opts {
		o(&s)
	}
	return s
}

// WithProfile makes the cloud-controller-manager behave as that
// provider's does (simulate/cloud/behaviour), through the
// cluster's cloud-config.
func WithProfile(name string) Option { return func(s *settings) { s.profile = name } }

// ValidateProfile refuses a provider the simulated manager cannot behave
// as, naming those it can.
func ValidateProfile(name string) error {
	if _, ok := behaviour.Of[name]; ok {
		return nil
	}
	names := slices.DeleteFunc(slices.Sorted(maps.Keys(behaviour.Of)), func(n string) bool { return n == "" })
	return fmt.Errorf("%q: the simulated cloud-controller-manager can behave as %s only", name, strings.Join(names, ", "))
}
