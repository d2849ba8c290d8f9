// Package defaultconfig is the task doc's "Default Configuration": leader
// migration with no configuration file, each manager on its built-in
// default.
package defaultconfig

import (
	"fmt"

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
				{Kind: migrate.Note, Body: "`handover lint` flags this: the built-in default names route-controller and service-controller, which match no controller of " + s.From + " or " + s.To + " (their names are node-route-controller and service-lb-controller), so both managers run those two on their own main lease; only cloud-node-lifecycle-controller migrates. Run with --force to rehearse it."}},
			migrate.WaitOwner(lmconfig.KCM)),
	}
	p.Steps = append(append(p.Steps, migrate.ReplaceSteps(s)...), migrate.SettleSteps(s)...)
	return p
}
