package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
)

// Manager is what one controller manager of one Kubernetes minor does with a
// LeaderMigrationConfiguration, read off its source (managers_source_test.go
// checks these tables against that source).
type Manager struct {
	Component string
	Minor     string
	// Controllers are the names the manager's leader-migration filter
	// compares controllerLeaders[].name with: its canonical controller names.
	Controllers []string
	// Aliases are the short names the --controllers flag accepts; the
	// leader-migration filter does not translate them.
	Aliases map[string]string
	// Default is what --enable-leader-migration without a file uses.
	Default []string
	// Disabled are off unless --controllers names them.
	Disabled []string
	// Names are the manager's own names of the canonical controllers where
	// they differ: before 1.28 the short names were the only names.
	Names map[string]string
	// Provider and Release name a provider's manager read from its
	// profile ("" for the managers of the tables here).
	Provider, Release string
	// IgnoresLeaderMigration: the manager has no leader-migration filter
	// and runs every controller under its own lease.
	IgnoresLeaderMigration bool
}

// Name is the manager's own name of a canonical controller.
func (m Manager) Name(canonical string) string {
	if n, ok := m.Names[canonical]; ok {
		return n
	}
	return canonical
}

// Canonical is the canonical name of one of the manager's controllers.
func (m Manager) Canonical(name string) string {
	for c, n := range m.Names {
		if n == name {
			return c
		}
	}
	return name
}

// each maps f over names.
func each(names []string, f func(string) string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = f(n)
	}
	return out
}

// Canonical cloud controller names shared by both managers since 1.28;
// handover speaks of controllers by these names at every version.
const (
	ServiceLB          = "service-lb-controller"
	NodeRoute          = "node-route-controller"
	CloudNodeLifecycle = "cloud-node-lifecycle-controller"
	CloudNode          = "cloud-node-controller"
	NodeIPAM           = "node-ipam-controller"
)

// defaultNames are the controller names of the built-in default
// configuration in k8s.io/controller-manager v0.28 to v0.32.
var defaultNames = []string{"route-controller", "service-controller", "cloud-node-lifecycle-controller"}

// canonicalMinors name their cloud controllers with the canonical names
// (introduced in 1.28) and accept the old short names as --controllers
// aliases. Each has a source release in managers_source_test.go.
var canonicalMinors = []string{"1.28", "1.29", "1.30", "1.31", "1.32"}

// shortMinors name their cloud controllers with the short names only, in
// the --controllers flag and in the leader-migration filter alike; their
// built-in default configuration names them correctly.
var shortMinors = []string{"1.26", "1.27"}

// shortNames are the pre-1.28 names of the canonical controllers.
var shortNames = map[string]string{ServiceLB: "service", NodeRoute: "route", CloudNodeLifecycle: "cloud-node-lifecycle", CloudNode: "cloud-node", NodeIPAM: "nodeipam"}

var managers = managerTable()

func managerTable() map[string]Manager {
	managers := map[string]Manager{}
	for _, minor := range canonicalMinors {
		managers["kube-controller-manager/"+minor] = Manager{
			Component:   "kube-controller-manager",
			Minor:       minor,
			Controllers: []string{ServiceLB, NodeRoute, CloudNodeLifecycle, NodeIPAM},
			Aliases:     map[string]string{"service": ServiceLB, "route": NodeRoute, "cloud-node-lifecycle": CloudNodeLifecycle, "nodeipam": NodeIPAM},
			Default:     defaultNames,
		}
		managers["cloud-controller-manager/"+minor] = Manager{
			Component: "cloud-controller-manager",
			Minor:     minor,
			// The simulated cloud's manager adds node-ipam-controller
			// (simulate/cloudprovider/ccmcontrollers), off by default.
			Controllers: []string{CloudNode, ServiceLB, NodeRoute, CloudNodeLifecycle, NodeIPAM},
			Aliases:     map[string]string{"cloud-node": CloudNode, "service": ServiceLB, "route": NodeRoute, "cloud-node-lifecycle": CloudNodeLifecycle, "nodeipam": NodeIPAM},
			Default:     defaultNames,
			Disabled:    []string{NodeIPAM},
		}
	}
	short := func(names ...string) []string { return each(names, func(n string) string { return shortNames[n] }) }
	for _, minor := range shortMinors {
		managers["kube-controller-manager/"+minor] = Manager{
			Component:   "kube-controller-manager",
			Minor:       minor,
			Controllers: short(ServiceLB, NodeRoute, CloudNodeLifecycle, NodeIPAM),
			Default:     short(NodeRoute, ServiceLB, CloudNodeLifecycle),
			Names:       shortNames,
		}
		// The simulated cloud's manager adds its node IPAM under
		// kube-controller-manager's name for it (the minor's build module
		// main), off by default.
		managers["cloud-controller-manager/"+minor] = Manager{
			Component:   "cloud-controller-manager",
			Minor:       minor,
			Controllers: short(CloudNode, ServiceLB, NodeRoute, CloudNodeLifecycle, NodeIPAM),
			Default:     short(NodeRoute, ServiceLB, CloudNodeLifecycle),
			Disabled:    short(NodeIPAM),
			Names:       shortNames,
		}
	}
	return managers
}

// LookupManager returns the facts for component at Kubernetes version v.
func LookupManager(component, v string) (Manager, error) {
	pv, err := version.ParseGeneric(v)
	if err != nil {
		return Manager{}, fmt.Errorf("version %q: %w", v, err)
	}
	minor := fmt.Sprintf("%d.%d", pv.Major(), pv.Minor())
	m, ok := managers[component+"/"+minor]
	if !ok {
		return Manager{}, fmt.Errorf("no facts about %s %s: handover knows %s", component, v, strings.Join(known(), ", "))
	}
	return m, nil
}

func known() []string {
	var out []string
	for k := range managers {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Runs reports whether the manager has a controller of that exact name.
func (m Manager) Runs(name string) bool { return slices.Contains(m.Controllers, name) }

// Enabled reports whether a --controllers value (comma-separated; "" means
// "*") turns the controller on, as the managers read it.
func (m Manager) Enabled(controllers, name string) bool {
	if controllers == "" {
		controllers = "*"
	}
	star := false
	for _, c := range strings.Split(controllers, ",") {
		c = strings.TrimSpace(c)
		if a, ok := m.Aliases[strings.TrimPrefix(c, "-")]; ok {
			c = strings.Replace(c, strings.TrimPrefix(c, "-"), a, 1)
		}
		switch c {
		case name:
			return true
		case "-" + name:
			return false
		case "*":
			star = true
		}
	}
	if !star {
		return false
	}
	for _, d := range m.Disabled {
		if d == name {
			return false
		}
	}
	return true
}
