package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

// Prediction is what the managers will do with each migrated controller,
// worked out from the same facts and configurations the findings read: a
// statement the rehearsal's checks can prove or refute.
type Prediction struct {
	// Both are run by a version-N kube-controller-manager and a
	// cloud-controller-manager at once (mutual exclusion fails).
	Both []string
	// Orphaned are run by no manager once the version-N
	// kube-controller-managers are gone (the coverage gap never ends).
	Orphaned []string
	// Unknown are controllers a side's version has no facts for.
	Unknown []string
}

// lock is how a side runs one controller: a manager runs its controllers
// while it holds its main lease and, for migrated ones, the migration lease.
type lock struct {
	runs   bool
	leases []string // names of the leases it must hold
	known  bool
	// inTree: a kube-controller-manager running the in-tree cloud loops;
	// afterSwitch: a manager that starts only once none does.
	inTree, afterSwitch bool
}

// exclusive: two managers needing one same lease never run at once, nor
// do an in-tree kube-controller-manager and a manager started after every
// one of those went external.
func (l lock) exclusive(o lock) bool {
	if (l.inTree && o.afterSwitch) || (l.afterSwitch && o.inTree) {
		return true
	}
	return slices.ContainsFunc(l.leases, func(n string) bool { return slices.Contains(o.leases, n) })
}

// lockOf says whether and under which leases side s runs controller c
// (canonical name).
func lockOf(s Side, c string) lock {
	m, err := s.manager()
	if err != nil {
		return lock{}
	}
	cloudLoop := c != NodeIPAM
	c = m.Name(c)
	if !m.Runs(c) || (cloudLoop && !s.runsCloudControllers()) || !s.runs(m, c) {
		return lock{known: true}
	}
	// Managers of one component share their main lease, named after the
	// component (handover refuses --leader-elect-resource-name).
	main := lock{runs: true, leases: []string{s.Component}, known: true,
		inTree: cloudLoop && s.Component == lmconfig.KCM && s.runsCloudControllers(), afterSwitch: cloudLoop && s.AfterSwitch}
	if !s.LeaderMigration || m.IgnoresLeaderMigration {
		return main
	}
	cfg := effective(s)
	switch cfg.Owner(c) {
	case "":
		return main
	case s.Component, lmconfig.Wildcard:
		main.leases = append(main.leases, cfg.LeaderName)
		return main
	}
	return lock{known: true}
}

// Predict works out, for each of controllers, whether two managers run it
// at once, and whether anything runs it once the version-N
// kube-controller-managers (those with an in-tree provider) are gone.
func Predict(controllers []string, sides ...Side) Prediction {
	sides = slices.Clone(sides)
	for i := range sides {
		sides[i] = sides[i].WithArgs()
	}
	var p Prediction
	for _, c := range controllers {
		locks := make([]lock, len(sides))
		unknown, remains := false, false
		for i, s := range sides {
			locks[i] = lockOf(s, c)
			unknown = unknown || !locks[i].known
			old := s.Component == lmconfig.KCM && s.runsCloudControllers()
			remains = remains || (!old && locks[i].runs)
		}
		switch {
		case unknown:
			p.Unknown = append(p.Unknown, c)
			continue
		case together(locks):
			p.Both = append(p.Both, c)
		}
		if !remains {
			p.Orphaned = append(p.Orphaned, c)
		}
	}
	return p
}

// together: two of the managers run the controller without a lease in
// common.
func together(locks []lock) bool {
	for i, a := range locks {
		for _, b := range locks[i+1:] {
			if a.runs && b.runs && !a.exclusive(b) {
				return true
			}
		}
	}
	return false
}

// String says the prediction in a sentence per kind of outcome.
func (p Prediction) String() string {
	var b strings.Builder
	if len(p.Both) == 0 && len(p.Orphaned) == 0 && len(p.Unknown) == 0 {
		b.WriteString("every migrated controller runs in one manager at a time, and the cloud-controller-manager runs each once the version-N kube-controller-managers are gone\n")
	}
	if len(p.Both) > 0 {
		fmt.Fprintf(&b, "runs in two managers at once: %s\n", strings.Join(p.Both, ", "))
	}
	if len(p.Orphaned) > 0 {
		fmt.Fprintf(&b, "run by no manager once the version-N kube-controller-managers are gone: %s\n", strings.Join(p.Orphaned, ", "))
	}
	if len(p.Unknown) > 0 {
		fmt.Fprintf(&b, "not predicted (no facts about a manager's version): %s\n", strings.Join(p.Unknown, ", "))
	}
	return b.String()
}
