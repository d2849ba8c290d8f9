package lint

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

// Side is one controller manager taking part in a migration, as its flags
// and configuration file set it up.
type Side struct {
	Component       string // kube-controller-manager or cloud-controller-manager
	Version         string
	LeaderMigration bool             // --enable-leader-migration
	ConfigPath      string           // --leader-migration-config; "" = built-in default
	Config          *lmconfig.Config // the parsed file, nil when ConfigPath is ""
	CloudProvider   string           // --cloud-provider
	// Provider is a cloud-controller-manager's provider profile
	// (providers/profiles); "" is handover's simulated cloud.
	Provider string
	// AfterSwitch: a cloud-controller-manager that starts only once no
	// kube-controller-manager runs the in-tree cloud loops (deployed after
	// the switch, or held back until then): it never runs beside them.
	AfterSwitch  bool
	FeatureGates string // --feature-gates
	Controllers  string // --controllers ("" = "*")
	// AllocateNodeCIDRs is --allocate-node-cidrs: node IPAM runs at all.
	AllocateNodeCIDRs bool
	ClusterName       string // --cluster-name
	// CloudConfig is the user's --cloud-config for the side's provider
	// code; nil when handover's own is used.
	CloudConfig *CloudConfig
	// Args are further flags (--name=value) the user gives the manager;
	// they win over the fields above.
	Args []string
}

// runs reports whether the side starts the controller at all.
func (s Side) runs(m Manager, name string) bool {
	if m.Canonical(name) == NodeIPAM && !s.AllocateNodeCIDRs {
		return false
	}
	return m.Enabled(s.Controllers, name)
}

func (s Side) where(field string) string {
	if s.ConfigPath == "" {
		return s.Component + " " + field
	}
	return s.ConfigPath + ": " + field
}

// runsCloudControllers reports whether the side runs the cloud loops at all:
// a kube-controller-manager only with an in-tree provider.
func (s Side) runsCloudControllers() bool {
	if s.Component == lmconfig.KCM {
		return s.CloudProvider != "" && s.CloudProvider != "external"
	}
	return true
}

// Lint checks every side on its own, then the sides against each other.
func Lint(sides ...Side) Findings {
	var out Findings
	sides = slices.Clone(sides)
	for i := range sides {
		sides[i] = sides[i].WithArgs()
		out = append(out, lintSide(sides[i])...)
	}
	return append(out, lintPairs(sides)...)
}

func lintSide(s Side) Findings {
	if s.Component != lmconfig.KCM && s.Component != lmconfig.CCM {
		return Findings{{Error, "component", fmt.Sprintf("unknown controller manager %q", s.Component),
			"use kube-controller-manager or cloud-controller-manager"}}
	}
	out := append(lintFlags(s), lintElection(s)...)
	out = append(out, lintCloudConfig(s)...)
	m, err := s.manager()
	if err != nil {
		return append(out, Finding{Warning, s.Component + " version", err.Error(), "controller names are not checked"})
	}
	if !s.LeaderMigration {
		return out
	}
	if m.IgnoresLeaderMigration {
		// It still reads and validates the file, and a bad one stops it.
		out = append(out, lintIgnored(s, m)...)
		if s.Config != nil {
			out = append(out, lintFile(s)...)
			for i, l := range s.Config.ControllerLeaders {
				if l.Name == "" || l.Component == "" {
					out = append(out, Finding{Error, s.where(fmt.Sprintf("controllerLeaders[%d]", i)),
						"has no name or no component: the managers' check of the file requires both in every entry, so " + s.Component + " " + s.Version + " refuses the file and does not start",
						"give every entry a name and a component"})
				}
			}
		}
		return out
	}
	if s.Config == nil {
		return append(out, lintDefault(s, m)...)
	}
	return append(out, lintConfig(s, m)...)
}

func lintFlags(s Side) Findings {
	var out Findings
	out = append(out, lintGate(s)...)
	if s.ConfigPath != "" && !s.LeaderMigration {
		out = append(out, Finding{Warning, s.Component + " --leader-migration-config",
			"is ignored without --enable-leader-migration", "add --enable-leader-migration or drop the flag"})
	}
	if s.Component == lmconfig.KCM && s.LeaderMigration && !s.runsCloudControllers() {
		out = append(out, Finding{Error, "kube-controller-manager --enable-leader-migration",
			"a kube-controller-manager without an in-tree cloud provider (version N+1) MUST NOT take part in leader migration: it would hold the migration lease without running the cloud controllers",
			"remove --enable-leader-migration and --leader-migration-config from the N+1 kube-controller-manager"})
	}
	if s.Component == lmconfig.KCM && s.runsCloudControllers() && minorAtLeast(s.Version, 31) {
		out = append(out, Finding{Error, "kube-controller-manager --cloud-provider",
			fmt.Sprintf("kube-controller-manager %s has no in-tree cloud providers; --cloud-provider=%s stops it", s.Version, s.CloudProvider),
			"unset --cloud-provider (or set external) and run the cloud controllers in cloud-controller-manager"})
	}
	return out
}

func lintDefault(s Side, m Manager) Findings {
	missing, outside := defaultGaps(m)
	if len(missing) == 0 || len(outside) == 0 {
		return nil
	}
	return Findings{{Error, s.Component + " --leader-migration-config (unset)",
		fmt.Sprintf("the built-in default configuration names %s, which %s %s does not have; the leader-migration filter compares names verbatim, so %s run under this manager's own main lease, outside the migration lock, and run in both managers",
			strings.Join(missing, ", "), s.Component, s.Version, strings.Join(outside, " and ")),
		"pass --leader-migration-config listing " + strings.Join(each(Migratable, m.Name), ", ") + " on both managers"}}
}

// DefaultGaps is what the built-in default configuration (no file) misses
// on a side's manager: the names it lists that the manager's filter never
// matches, and the migratable controllers (canonical names) it therefore
// leaves on the manager's main lease. Both are empty where the default
// names exactly what the manager runs (1.26 and 1.27).
func DefaultGaps(s Side) (missing, outside []string, err error) {
	m, err := s.manager()
	if err != nil {
		return nil, nil, err
	}
	missing, outside = defaultGaps(m)
	return missing, outside, nil
}

func defaultGaps(m Manager) (missing, outside []string) {
	for _, n := range m.Default {
		if !m.Runs(n) {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	return missing, unmigrated(each(m.Default, m.Canonical))
}

// Migratable are the controllers both managers run and leader migration
// hands over.
var Migratable = []string{ServiceLB, NodeRoute, CloudNodeLifecycle}

// unmigrated are the Migratable controllers a configuration does not list.
func unmigrated(names []string) []string {
	var out []string
	for _, c := range Migratable {
		found := false
		for _, n := range names {
			found = found || n == c
		}
		if !found {
			out = append(out, c)
		}
	}
	return out
}

func lintConfig(s Side, m Manager) Findings {
	c := s.Config
	out := lintFile(s)
	out = append(out, lintMigrationLock(s)...)
	if len(c.ControllerLeaders) == 0 {
		out = append(out, Finding{Error, s.where("controllerLeaders"), "is empty: nothing would migrate", "list " + strings.Join(each(Migratable, m.Name), ", ")})
	}
	seen := map[string]string{}
	for i, l := range c.ControllerLeaders {
		path := fmt.Sprintf("controllerLeaders[%d]", i)
		out = append(out, lintLeader(s, m, path, l, seen)...)
		if m.Runs(l.Name) && (l.Component == s.Component || l.Component == lmconfig.Wildcard) && !s.runs(m, l.Name) {
			out = append(out, Finding{Error, s.where(path + ".name"),
				fmt.Sprintf("%s is given to %s, which does not start it (--controllers=%q, --allocate-node-cidrs=%t): nothing runs it once it migrates here", l.Name, s.Component, s.Controllers, s.AllocateNodeCIDRs),
				"enable it: --controllers=*," + l.Name + " (and --allocate-node-cidrs=true for node IPAM)"})
		}
	}
	return out
}

// lintFile is what makes a manager refuse the file whatever it does with
// it afterwards: its kind and version, decoding, and leaderName.
func lintFile(s Side) Findings {
	c := s.Config
	var out Findings
	if c.Kind != lmconfig.Kind || !slices.Contains(lmconfig.APIVersions, c.APIVersion) {
		out = append(out, Finding{Error, s.where("kind/apiVersion"),
			fmt.Sprintf("is %s %s", c.Kind, c.APIVersion), "use kind: " + lmconfig.Kind + " and apiVersion: " + lmconfig.APIVersion})
	}
	out = append(out, lintDecoding(s)...)
	if c.LeaderName == "" {
		out = append(out, Finding{Error, s.where("leaderName"), "is empty", "set leaderName: " + lmconfig.DefaultLeaderName + " on both managers"})
	} else if errs := validation.IsDNS1123Subdomain(c.LeaderName); len(errs) > 0 {
		out = append(out, Finding{Error, s.where("leaderName"),
			fmt.Sprintf("%q is not a Lease name (%s): %s cannot take the migration lease", c.LeaderName, strings.Join(errs, "; "), s.Component),
			"set leaderName: " + lmconfig.DefaultLeaderName + " on both managers"})
	}
	return out
}

func lintLeader(s Side, m Manager, path string, l lmconfig.ControllerLeader, seen map[string]string) Findings {
	var out Findings
	// inert: the filter never compares the entry, and another entry
	// covers its controller under the manager's own name.
	inert := l.Name != "" && !m.Runs(l.Name) && compared(m, s.Config, stands(m, l.Name)) >= 0
	switch {
	case l.Name == "":
		out = append(out, Finding{Error, s.where(path + ".name"), "is empty", "name one of " + strings.Join(m.Controllers, ", ")})
	case inert:
		out = append(out, unused(s, m, path, l))
	case m.Aliases[l.Name] != "":
		out = append(out, Finding{Error, s.where(path + ".name"),
			fmt.Sprintf("%q is an alias; %s %s's leader-migration filter compares canonical names only, so it matches nothing and %s runs outside the migration lock",
				l.Name, s.Component, s.Version, m.Aliases[l.Name]),
			fmt.Sprintf("use name: %s", m.Aliases[l.Name])})
	case !m.Runs(l.Name) && absent(m, l.Name):
		// The other manager's controller (cloud-node-controller in a
		// file kube-controller-manager reads too): this filter never
		// compares the entry, and nothing of this manager's is left out.
		out = append(out, Finding{Warning, s.where(path + ".name"),
			fmt.Sprintf("%s %s has no %s: its leader-migration filter never compares this entry, so it changes nothing there", s.Component, s.Version, l.Name),
			"harmless; keep it for the manager that has the controller"})
	case !m.Runs(l.Name):
		out = append(out, Finding{Error, s.where(path + ".name"),
			fmt.Sprintf("%q is not a controller of %s %s", l.Name, s.Component, s.Version),
			"use one of " + strings.Join(m.Controllers, ", ")})
	case seen[l.Name] != "" && seen[l.Name] == l.Component:
		out = append(out, Finding{Warning, s.where(path + ".name"), fmt.Sprintf("%q is listed twice, to %s both times: harmless, the filter keeps the last", l.Name, l.Component), "keep one entry per controller"})
	case seen[l.Name] != "":
		out = append(out, Finding{Error, s.where(path + ".name"),
			fmt.Sprintf("%q is listed twice, to %s and then to %s: the managers' filter keeps the last entry, so what this file seems to say first is not what runs", l.Name, seen[l.Name], l.Component),
			"keep one entry per controller"})
	}
	seen[l.Name] = l.Component
	switch l.Component {
	case lmconfig.KCM, lmconfig.CCM, lmconfig.Wildcard:
	case "":
		// ValidateLeaderMigrationConfiguration
		// (pkg/leadermigration/config/config.go) requires a component in
		// every entry, compared or not.
		out = append(out, Finding{Error, s.where(path + ".component"),
			fmt.Sprintf("is empty: the managers' check of the file requires a component in every entry, so %s %s refuses the file and does not start", s.Component, s.Version),
			"use kube-controller-manager, cloud-controller-manager or *"})
	default:
		if inert {
			// What an entry the filter never compares says changes
			// nothing here; unused says where it differs.
			break
		}
		out = append(out, Finding{Error, s.where(path + ".component"),
			fmt.Sprintf("%q is not a component: no manager would run %s", l.Component, l.Name),
			"use kube-controller-manager, cloud-controller-manager or *"})
	}
	if s.Component == lmconfig.CCM && l.Component == lmconfig.KCM && !inert {
		out = append(out, Finding{Error, s.where(path + ".component"),
			fmt.Sprintf("cloud-controller-manager's configuration gives %s to kube-controller-manager: once the version-N kube-controller-managers are gone nothing runs it", l.Name),
			"use component: cloud-controller-manager in the configuration cloud-controller-manager reads"})
	}
	return out
}

// absent: name stands for a controller m has under no name at all (a
// cloud-controller-manager's cloud-node controller, to a
// kube-controller-manager), as opposed to a typo or a name m spells
// another way.
func absent(m Manager, name string) bool {
	c := stands(m, name)
	return c != "" && !m.Runs(m.Name(c)) && !m.Runs(c)
}

// stands is the canonical controller an entry's name stands for in any
// manager's vocabulary: a canonical name, or its short name (an alias from
// 1.28 on, the only name before); "" for a name no manager has.
func stands(m Manager, name string) string {
	if c, ok := m.Aliases[name]; ok {
		return c
	}
	for c, short := range shortNames {
		if name == c || name == short {
			return c
		}
	}
	return ""
}

// compared is the index of the entry that s's manager's leader-migration
// filter matches for canonical controller c, or -1: the filter
// (k8s.io/controller-manager pkg/leadermigration/migrator.go,
// NewLeaderMigrator) is a map from each entry's name, the last entry
// winning, looked up with the manager's own name of each controller it
// starts (Manager.Controllers); an entry under any other name is never
// looked up.
func compared(m Manager, cfg *lmconfig.Config, c string) int {
	own := m.Name(c)
	if c == "" || cfg == nil || !m.Runs(own) {
		return -1
	}
	at := -1
	for i, l := range cfg.ControllerLeaders {
		if l.Name == own {
			at = i
		}
	}
	return at
}

// unused is the warning for an entry the side's filter never compares,
// whose controller another entry covers under the manager's own name: a
// file written for both sides of the 1.28 rename of the cloud controllers.
// What runs is the other entry's doing; this one changes nothing here.
func unused(s Side, m Manager, path string, l lmconfig.ControllerLeader) Finding {
	c := stands(m, l.Name)
	at := compared(m, s.Config, c)
	other := s.Config.ControllerLeaders[at]
	problem := fmt.Sprintf("%q is not a name %s %s's leader-migration filter compares (it matches names verbatim): this entry changes nothing there, where controllerLeaders[%d] covers the controller under its name %s (to %s)",
		l.Name, s.Component, s.Version, at, other.Name, other.Component)
	if other.Component != l.Component {
		problem += fmt.Sprintf(", not to %q as this entry says: managers on the other side of the rename read this entry and not that one", l.Component)
	}
	era := "1.28 and later"
	if m.Names == nil {
		era = "before 1.28"
	}
	return Finding{Warning, s.where(path + ".name"), problem,
		fmt.Sprintf("harmless; keep it only while managers that name the controller %s (%s) read this file too", l.Name, era)}
}
