package rancher

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/migrate"
)

// Cluster is what one Rancher file says of a cluster, as far as a
// rehearsal depends on it; each value keeps its place in the file.
type Cluster struct {
	Source    string
	Procedure string // migrate.RKE2 or migrate.RKE: the runbook the file's kind follows
	Kind      string // what the file is, for messages
	// Name and Namespace identify the cluster (metadata.name, or RKE's
	// cluster_name); "" where the file does not say.
	Name, Namespace Value
	Version         Version
	// CloudProvider is the name the distribution is given
	// (cloud-provider-name, cloud_provider.name).
	CloudProvider Value
	// KCMProvider is kube-controller-manager's --cloud-provider where a
	// flag of its own sets it over CloudProvider (Rancher's AWS set-up
	// sets cloud-provider=external on the control planes while keeping
	// cloud-provider-name aws for the node names).
	KCMProvider Value
	// KCMArgs are kube-controller-manager's flags (--name=value), but
	// leader migration's and those handover sets itself.
	KCMArgs []Arg
	// KCMLeaderMigration is leader migration as kube-controller-manager's
	// flags set it.
	KCMLeaderMigration LeaderMigration
	// Chart is the cloud-controller-manager chart the file installs (RKE2's
	// additionalManifest); nil when it installs none.
	Chart *Chart
	// NodeDriver is the cloud the machines are made in, where the file
	// says (an RKE2 machine pool's machineConfigRef.kind).
	NodeDriver Value
	// MetadataHostname is RKE's cloud_provider.useInstanceMetadataHostname
	// (nil: not set), at MetadataHostnameAt.
	MetadataHostname   *bool
	MetadataHostnameAt Where
	Notes              []Note
}

// Arg is a manager's flag as --name=value, with its place.
type Arg struct {
	Flag string
	At   Where
}

// LeaderMigration is --enable-leader-migration and
// --leader-migration-config as a manager's flags give them.
type LeaderMigration struct {
	Enabled bool
	// Config is --leader-migration-config: a file on the nodes, which the
	// YAML does not hold ("" for the built-in default).
	Config string
	At     Where
}

// kcmProvider is the cloud provider kube-controller-manager runs.
func (c *Cluster) kcmProvider() Value {
	if c.KCMProvider.Text != "" {
		return c.KCMProvider
	}
	return c.CloudProvider
}

// flagName is a flag's name as the managers take it.
var flagName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]*$`)

// managerFlags sorts a manager's flags, each read with its field, into
// leader migration, the cloud provider, the flags a rehearsal carries, and
// notes on the rest.
type managerFlags struct {
	lm       LeaderMigration
	provider Value
	args     []Arg
	notes    notes
}

// add reads one flag; bare: given without a value (true). What handover
// sets itself is noted, not carried.
func (m *managerFlags) add(f field, name, value string, bare bool) error {
	if !flagName.MatchString(name) {
		return f.errorf("%q is not a flag's name", name)
	}
	name = strings.ReplaceAll(name, "_", "-") // the managers read _ as -
	if bare {
		value = "true" // as pflag reads a bare boolean flag
	}
	switch {
	case name == "enable-leader-migration":
		on, err := flagBool(f, value)
		m.lm.Enabled, m.lm.At = on, f.at()
		return err
	case name == "leader-migration-config":
		m.lm.Config = value
		m.notes.add(f, "--leader-migration-config=%s is a file on the nodes, which this YAML does not hold: give its content with leaderMigration (a file beside the rehearsal file)", value)
		return nil
	case name == "cloud-provider":
		m.provider = Value{Text: value, At: f.at()}
		return nil
	case migrate.OwnFlag(name) != "":
		m.notes.add(f, "--%s not carried: handover sets it itself (%s)", name, migrate.OwnFlag(name))
		return nil
	case value == "":
		m.notes.add(f, "--%s= has no value: not carried", name)
		return nil
	}
	flag := "--" + name
	if !bare {
		flag += "=" + value
	}
	m.args = append(m.args, Arg{Flag: flag, At: f.at()})
	return nil
}

// flagBool reads a boolean flag's value as pflag does (strconv).
func flagBool(f field, value string) (bool, error) {
	on, err := strconv.ParseBool(value)
	if err != nil {
		return false, f.errorf("%q is not true or false", value)
	}
	return on, nil
}

// addArgs reads a list of flags written as an RKE2 configuration file and
// a chart's args list write them: name=value or a bare name, with or
// without a leading -- (k3s pkg/util/args.go GetArgs trims it). k3s's
// name+=value and name-=value append to or prepend RKE2's own value,
// which the file does not show: noted, not carried.
func (m *managerFlags) addArgs(values []string, fields []field) error {
	for i, a := range values {
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if trimmed := strings.TrimRight(name, "+-"); trimmed != name && hasValue {
			m.notes.add(fields[i], "%s changes RKE2's own value of --%s, which the file does not show: not carried", a, trimmed)
			continue
		}
		if err := m.add(fields[i], name, value, !hasValue); err != nil {
			return err
		}
	}
	return nil
}
