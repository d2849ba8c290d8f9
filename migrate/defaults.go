package migrate

import (
	"slices"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// What the plans' notes say about controller names, from the lint's facts
// for the spec's versions: the managers' names changed in 1.28, and the
// built-in default configuration fits 1.26 and 1.27 only.

// DefaultNames are the names the version-N kube-controller-manager's
// built-in default configuration lists ("" without facts for it).
func (s Spec) DefaultNames() string {
	m, err := lint.LookupManager(lmconfig.KCM, s.From)
	if err != nil {
		return ""
	}
	return strings.Join(m.Default, ", ")
}

// DefaultMisses says which of the built-in default's names match no
// controller of the managers taking part, as "two of its names
// (route-controller, service-controller) match no controller of v1.30.14";
// "" when every name matches.
func (s Spec) DefaultMisses() string {
	missing, versions := s.defaultGaps()
	if len(missing) == 0 {
		return ""
	}
	return count(len(missing)) + " of its names (" + strings.Join(missing, ", ") + ") match no controller of " + strings.Join(versions, " or ")
}

// defaultGaps are the names the built-in default lists that a manager of
// the procedure does not have, and those managers' versions.
func (s Spec) defaultGaps() (missing, versions []string) {
	for _, sd := range s.bare().setupAs(BuiltIn).sides() {
		m, _, err := lint.DefaultGaps(sd)
		if err != nil || len(m) == 0 || !sd.LeaderMigration {
			continue
		}
		for _, n := range m {
			if !slices.Contains(missing, n) {
				missing = append(missing, n)
			}
		}
		if !slices.Contains(versions, sd.Version) {
			versions = append(versions, sd.Version)
		}
	}
	return missing, versions
}

// bare is the spec without the user's configurations and mistake: the
// procedure's own setup, as its source has it.
func (s Spec) bare() Spec {
	s.KCMConfig, s.CCMConfig, s.Mistake = nil, nil, ""
	return s
}

// FileNames says what names the procedure's files give the controllers:
// "the canonical names" from 1.28 on, each manager's own where a side is
// older (its short names are its only ones).
func (s Spec) FileNames() string {
	for _, sd := range s.Sides() {
		short := func(c string) bool { return ownName(sd.Component, sd.Version, c) != c }
		if sd.Config != nil && slices.ContainsFunc(s.Controllers(), short) {
			return "the names each manager filters on (before 1.28, the short ones)"
		}
	}
	return "the canonical names"
}

// configNamesNote is the note on the names the version-N
// kube-controller-manager's file gives the controllers.
func (s Spec) configNamesNote() string {
	m, err := lint.LookupManager(lmconfig.KCM, s.From)
	if err == nil && slices.ContainsFunc(taskDocNames, m.Runs) {
		return "Controller names are the ones kube-controller-manager " + s.From + " filters on: before 1.28 the task doc's route, service and cloud-node-lifecycle are the managers' only names."
	}
	return "Controller names are the canonical ones kube-controller-manager " + s.From + " filters on; the task doc's route, service and cloud-node-lifecycle are aliases the filter does not translate (see `handover lint`)."
}

// taskDocNames are the controller names the task doc's configurations give.
var taskDocNames = []string{"route", "service", "cloud-node-lifecycle"}

// count is a small number in words.
func count(n int) string {
	if n < len(numberWords) {
		return numberWords[n]
	}
	return strconv.Itoa(n)
}

var numberWords = []string{"none", "one", "two", "three", "four"}
