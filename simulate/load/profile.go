package load

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// Profile says how much load to apply.
type Profile struct {
	Name string `json:"name"`
	// Services are LoadBalancer Services kept for the whole run.
	Services int `json:"services"`
	// ChurnEvery: at this interval one churn Service is created, the
	// previous one updated and the one before deleted (0 = no churn).
	ChurnEvery time.Duration `json:"churnEvery"`
	// NodeJoins workers join during the run (with more than one, the last
	// after the hand-off); NodeTerminations of them have their instance
	// terminated in the cloud afterwards, which the cloud-node-lifecycle
	// controller must notice.
	NodeJoins        int `json:"nodeJoins"`
	NodeTerminations int `json:"nodeTerminations"`
	// APIQPS is requests per second, three reads to one write.
	APIQPS float64 `json:"apiQPS"`
	// PullEvery: at this interval every Ready node starts a pod of an
	// image in the cloud's registry, when the cloud has one (0 = none).
	PullEvery time.Duration `json:"pullEvery"`
}

// Profiles by name. moderate is the default and fits a 2-core machine
// beside a 3 + 2 node cluster.
var Profiles = map[string]Profile{
	"none":     {Name: "none"},
	"light":    {Name: "light", Services: 1, ChurnEvery: time.Minute, APIQPS: 5, PullEvery: time.Minute},
	"moderate": {Name: "moderate", Services: 2, ChurnEvery: 20 * time.Second, NodeJoins: 2, NodeTerminations: 1, APIQPS: 20, PullEvery: 30 * time.Second},
	"heavy":    {Name: "heavy", Services: 4, ChurnEvery: 5 * time.Second, NodeJoins: 3, NodeTerminations: 2, APIQPS: 60, PullEvery: 15 * time.Second},
}

// Names lists the profiles.
func Names() []string {
	return slices.Sorted(maps.Keys(Profiles))
}

// Lookup finds a profile by name.
func Lookup(name string) (Profile, error) {
	p, ok := Profiles[name]
	if !ok {
		return Profile{}, fmt.Errorf("--load %q: use one of %s", name, strings.Join(Names(), ", "))
	}
	return p, nil
}

// Validate checks a profile's numbers.
func (p Profile) Validate() error {
	switch {
	case p.Services < 0 || p.NodeJoins < 0 || p.NodeTerminations < 0 || p.APIQPS < 0 || p.ChurnEvery < 0 || p.PullEvery < 0:
		return fmt.Errorf("load %q: counts, rates and intervals must not be negative", p.Name)
	case p.NodeTerminations > p.NodeJoins:
		return fmt.Errorf("load %q: nodeTerminations (%d) > nodeJoins (%d): only workers the load joined are terminated", p.Name, p.NodeTerminations, p.NodeJoins)
	case p.ChurnEvery > 0 && p.ChurnEvery < time.Second:
		return fmt.Errorf("load %q: churnEvery %s is below 1s", p.Name, p.ChurnEvery)
	case p.PullEvery > 0 && p.PullEvery < 5*time.Second:
		return fmt.Errorf("load %q: pullEvery %s is below 5s (a pod start per node each time)", p.Name, p.PullEvery)
	}
	return nil
}

// None says whether the profile does nothing.
func (p Profile) None() bool {
	return p.Services == 0 && p.ChurnEvery == 0 && p.NodeJoins == 0 && p.APIQPS == 0
}
