package taskdoc

import (
	"fmt"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// Source is the document the procedure follows.
const Source = "Kubernetes task: Migrate Replicated Control Plane To Use Cloud Controller Manager"

func init() {
	migrate.Register(migrate.Registration{Name: migrate.TaskDoc, Source: Source, Order: 10,
		Variants: migrate.Variant{InPlace: true, Rollback: true, Disable: true}, Mistakes: true,
		Managers: migrate.Managers{Config: migrate.PerComponent, CCMAt: migrate.N1, NewKCM: true, CCMForms: migrate.StaticPodForm}, Steps: Steps})
}

// Steps are the upstream task doc: lease RBAC, the initial configuration
// and leader migration on the version-N kube-controller-managers, then N+1
// control planes with a static-pod cloud-controller-manager replace the N
// ones one at a time (or, --in-place, are upgraded one at a time); --disable
// removes leader migration afterwards; --rollback goes back from N+1 to N,
// with --disable re-enabling leader migration first (the task doc: "it is
// safe to re-enable Leader Migration for the rollback").
func Steps(s migrate.Spec) *migrate.Procedure {
	p := &migrate.Procedure{}
	if s.Variant.Rollback {
		p.Title = fmt.Sprintf("Roll back the control plane from %s (cloud-controller-manager) to %s (in-tree)", s.To, s.From)
		if s.Variant.Disable {
			p.Title += ", leader migration re-enabled first"
		}
		p.Steps = migrate.RollbackSteps(s)
		return p
	}
	p.Title = fmt.Sprintf("Migrate the cloud controllers from kube-controller-manager %s to cloud-controller-manager %s", s.From, s.To)
	p.Steps = []migrate.Step{
		migrate.GrantStep(s, s.Provider().CCMUser),
	}
	p.Steps = append(p.Steps, migrate.WriteConfigSteps(s)...)
	add := "add, and mount " + migrate.LMConfigPath + " read-only"
	if !s.KCMFile() {
		add = "add (no file: the built-in default)"
	}
	p.Steps = append(p.Steps,
		migrate.RollStep(s, "enable-leader-migration", "Enable leader migration on every version-"+s.From+" kube-controller-manager, one node at a time",
			s.NSide(), lmconfig.KCM, migrate.EnableLM(s.KCMFile(), s.KCMArgs),
			[]migrate.Item{migrate.FlagsPlan(lmconfig.KCM, add, append(migrate.LMFlags(s.KCMFile()), s.KCMArgs...)...),
				{Kind: migrate.Note, Body: "No --feature-gates=ControllerManagerLeaderMigration=true, as the task doc has: " + lint.GateHistory(s.From) + "."}},
			migrate.WaitOwner(lmconfig.KCM)))
	if s.Variant.InPlace {
		p.Steps = append(p.Steps, migrate.InPlaceSteps(s)...)
	} else {
		p.Steps = append(p.Steps, migrate.ReplaceSteps(s)...)
	}
	p.Steps = append(p.Steps, migrate.SettleSteps(s)...)
	return p
}
