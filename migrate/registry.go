package migrate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/clusters/managers"
)

// Procedure names (their packages under migrate/procedures register them).
const (
	TaskDoc         = "taskdoc"
	RKE2            = "rke2"
	RKE             = "rke"
	DefaultConfig   = "default-config"
	NodeIPAM        = "node-ipam"
	StopStart       = "stop-start"
	ControllersFlag = "controllers-flag"
)

// Registration is everything handover knows about a procedure outside its
// own file of steps: the plan, the preflight lint's view of the managers
// and the validation of a Spec are derived from it.
type Registration struct {
	Name   string
	Source string // the document it follows
	// Flavours are the runbook's clouds; the first is the default. A
	// procedure with none takes no --flavour.
	Flavours []string
	// Variants are the variants it accepts.
	Variants Variant
	// Mistakes: it can be done wrong on purpose (forward, replacing nodes).
	Mistakes bool
	// Also are controllers it migrates besides the cloud controllers.
	Also []string
	// Managers says which manager reads which configuration.
	Managers Managers
	// Steps builds its title and steps from a validated Spec.
	Steps func(Spec) *Procedure
	// Order places it in help and messages, lowest first.
	Order int
}

// Managers is how a procedure sets up the managers taking part.
type Managers struct {
	// Config is what the leader-migration configuration files say.
	Config ConfigStyle
	// FollowsDefault: the source relies on the managers' built-in default
	// configuration. The procedure follows it as written where the lint
	// finds it safe on the versions rehearsed, and writes Config's file
	// elsewhere.
	FollowsDefault bool
	// CCMAt is the version the cloud-controller-manager runs: N+1 when it
	// comes with the new control planes (the task doc) or with the version
	// the switch raises to (Rancher's runbooks), N when a chart installs it
	// on a cluster that stays at N.
	CCMAt Version
	// NewKCM: version-N+1 kube-controller-managers, with no cloud provider
	// and no leader migration, replace the version-N ones.
	NewKCM bool
	// SwitchRaises: the switch to the external provider raises the
	// Kubernetes version when N+1 is newer than N (Rancher's runbooks: "if
	// upgrading"). Version-N+1 control planes, as NewKCM's, then replace
	// the version-N ones one at a time.
	SwitchRaises bool
	// CCMHeld: the cloud-controller-manager cannot start before every
	// kube-controller-manager runs without the in-tree provider (a
	// Deployment's pods wait on cordoned control planes until the uncordon
	// that follows the switch); nil is never.
	CCMHeld func(Spec) bool
	// CCMForms are the ways it can run the cloud-controller-manager
	// (managers.StaticPod, DaemonSet, Deployment); the first is the
	// default unless the flavour's chart says otherwise. Only a chart's
	// forms take a user's own manifest.
	CCMForms []string
	// KCMControllers are the version-N kube-controller-managers'
	// --controllers during the procedure ("" leaves them as kubeadm
	// wrote them): KubeOne's exclusion of the cloud loops.
	KCMControllers string
	// SwitchNamesFromMetadata are the flavours whose switch sets each
	// kubelet's --hostname-override to its instance metadata's hostname
	// (RKE's external-aws with useInstanceMetadataHostname), where the
	// cloud serves instance metadata (providers.InstanceMetadata); on
	// another the kubelets keep their names.
	SwitchNamesFromMetadata []string
}

// ConfigStyle is what the leader-migration configuration files say.
type ConfigStyle int

const (
	// PerComponent: each manager's file gives the controllers to its own
	// component (the task doc).
	PerComponent ConfigStyle = iota
	// Wildcard: every controller to component '*', as the built-in default
	// the Rancher runbooks rely on; each manager's file under its own names.
	Wildcard
	// BuiltIn: no file; both managers use their built-in default.
	BuiltIn
	// NoMigration: no leader migration at all; the procedure stops the
	// cloud loops in one manager before it starts them in the other.
	NoMigration
)

// migrates: the procedure uses leader migration at all.
func (m Managers) migrates() bool { return m.Config != NoMigration }

// Migrates says whether the procedure uses leader migration at all.
func (m Managers) Migrates() bool { return m.migrates() }

// Version is N or N+1 of a Spec.
type Version int

const (
	N Version = iota
	N1
)

// procedures is the table of procedures, in Order. Each procedure's
// package registers its row at init (migrate/procedures imports them all).
var procedures []Registration

// Register adds a procedure's row; a name registered twice is a
// programming error.
func Register(r Registration) {
	for _, have := range procedures {
		if have.Name == r.Name {
			panic("migrate: procedure " + r.Name + " registered twice")
		}
	}
	procedures = append(procedures, r)
	slices.SortStableFunc(procedures, func(a, b Registration) int { return a.Order - b.Order })
}

// The cloud-controller-manager's forms: a static pod on each N+1 control
// plane (the task doc), or a chart's workload (Rancher's runbooks).
var (
	StaticPodForm = []string{managers.StaticPod}
	ChartForms    = []string{managers.DaemonSet, managers.Deployment}
)

// Names lists the procedures, sorted.
func Names() []string {
	out := make([]string, 0, len(procedures))
	for _, r := range procedures {
		out = append(out, r.Name)
	}
	slices.Sort(out)
	return out
}

// Lookup finds a procedure's registration.
func Lookup(name string) (Registration, error) {
	for _, r := range procedures {
		if r.Name == name {
			return r, nil
		}
	}
	if len(procedures) == 0 {
		return Registration{}, fmt.Errorf("unknown procedure %q: no procedure is registered (the program must import migrate/procedures)", name)
	}
	return Registration{}, fmt.Errorf("unknown procedure %q: choose one of %s", name, strings.Join(Names(), ", "))
}

// reg is the spec's registration; Build has checked it exists.
func (s Spec) reg() Registration {
	r, _ := Lookup(s.Procedure)
	return r
}

// Complete fills in a spec's defaults (the flavour) and validates it.
func Complete(s Spec) (Spec, error) {
	r, err := Lookup(s.Procedure)
	if err != nil {
		return s, err
	}
	if s.Flavour == "" && len(r.Flavours) > 0 {
		s.Flavour = r.Flavours[0]
	}
	s.Intervals = s.Intervals.following(s.Election())
	return s, s.Validate()
}

// Build completes and validates the spec and returns its procedure; the
// procedure carries the completed spec.
func Build(s Spec) (*Procedure, error) {
	s, err := Complete(s)
	if err != nil {
		return nil, err
	}
	r := s.reg()
	p := r.Steps(s)
	p.Name, p.Source, p.Spec = r.Name, r.Source, s
	return p, nil
}

// accepting names the procedures for which has holds, for error messages:
// "the taskdoc procedure", "the rke2 and rke procedures".
func accepting(has func(Registration) bool) string {
	var out []string
	for _, r := range procedures {
		if has(r) {
			out = append(out, r.Name)
		}
	}
	switch len(out) {
	case 0:
		return "no procedure"
	case 1:
		return "the " + out[0] + " procedure"
	}
	return "the " + strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1] + " procedures"
}

// FlavourHelp describes the flavours of every procedure that has some, for
// --help: "rke2: aws (default), azure; rke: external (default), external-aws".
func FlavourHelp() string {
	var out []string
	for _, r := range procedures {
		if len(r.Flavours) > 0 {
			out = append(out, r.Name+": "+r.Flavours[0]+" (default), "+strings.Join(r.Flavours[1:], ", "))
		}
	}
	return strings.Join(out, "; ")
}
