// Package defaultconfig is the task doc's "Default Configuration": leader
// migration with no configuration file, each manager on its built-in
// default.
package defaultconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/migrate/procedures/taskdoc"
)

func init() {
	migrate.Register(migrate.Registration{Name: migrate.DefaultConfig, Source: taskdoc.Source + " (Default Configuration)", Order: 40,
		Variants: migrate.Variant{Disable: true},
		Managers: migrate.Managers{Config: migrate.BuiltIn, CCMAt: migrate.N1, NewKCM: true, CCMForms: migrate.StaticPodForm}, Steps: Steps})
}

// Steps are the task doc's "Default Configuration": both managers
// with --enable-leader-migration and no --leader-migration-config.
func Steps(s migrate.Spec) *migrate.Procedure {
	p := &migrate.Procedure{Title: fmt.Sprintf("Migrate with the built-in default configuration, %s to %s", s.From, s.To)}
	p.Steps = []migrate.Step{
		migrate.GrantStep(s, s.Provider().CCMUser),
		migrate.RollStep(s, "enable-leader-migration", "Enable leader migration, with no configuration file, on every version-"+s.From+" kube-controller-manager",
			s.NSide(), lmconfig.KCM, migrate.EnableLM(false, s.KCMArgs),
			[]migrate.Item{migrate.FlagsPlan(lmconfig.KCM, "add", append(migrate.LMFlags(false), s.KCMArgs...)...),
				{Kind: migrate.Note, Body: note(s)}},
			migrate.WaitOwner(lmconfig.KCM)),
	}
	p.Steps = append(append(p.Steps, migrate.ReplaceSteps(s)...), migrate.SettleSteps(s)...)
	return p
}

// note says what the lint makes of the built-in default on the spec's
// versions: it fits the managers of 1.26 and 1.27, and from 1.28 two of
// its names match nothing.
func note(s migrate.Spec) string {
	if s.Lint().Errors() == 0 {
		return "The built-in default names " + s.DefaultNames() + ": on these versions exactly what both managers filter on, so the lint finds nothing and the run needs no --force."
	}
	both := s.Predict().Both
	if len(both) == 0 || s.DefaultMisses() == "" {
		return "`handover lint` flags this (see the preflight lint below). Run with --force to rehearse it."
	}
	rest := slices.DeleteFunc(s.Controllers(), func(c string) bool { return slices.Contains(both, c) })
	return "`handover lint` flags the built-in default: " + s.DefaultMisses() + ", so " + strings.Join(both, " and ") + " run in both managers at once, outside the migration lock; only " +
		strings.Join(rest, " and ") + " migrates. Run with --force to rehearse it."
}
