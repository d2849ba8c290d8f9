package migrate

import (
	"fmt"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

// defaultConfig is the task doc's "Default Configuration": both managers
// with --enable-leader-migration and no --leader-migration-config.
func defaultConfig(s Spec) *Procedure {
	p := &Procedure{Title: fmt.Sprintf("Migrate with the built-in default configuration, %s to %s", s.From, s.To)}
	p.Steps = []Step{
		GrantStep(s, s.provider().CCMUser),
		RollStep(s, "enable-leader-migration", "Enable leader migration, with no configuration file, on every version-"+s.From+" kube-controller-manager",
			s.NSide(), lmconfig.KCM, EnableLM(false, s.KCMArgs),
			[]Item{FlagsPlan(lmconfig.KCM, "add", append(LMFlags(false), s.KCMArgs...)...),
				{Kind: Note, Body: "`handover lint` flags this: the built-in default names route-controller and service-controller, which match no controller of " + s.From + " or " + s.To + " (their names are node-route-controller and service-lb-controller), so both managers run those two on their own main lease; only cloud-node-lifecycle-controller migrates. Run with --force to rehearse it."}},
			WaitOwner(lmconfig.KCM)),
		N1ConfigStep(s),
	}
	for i := 1; i <= s.ControlPlanes; i++ {
		p.Steps = append(p.Steps, AddN1Step(s, i), RemoveNStep(s, i))
	}
	p.Steps = append(p.Steps, SettleStep(s, lmconfig.CCM))
	if s.Variant.Disable {
		p.Steps = append(p.Steps, DisableStep(s))
	}
	return p
}
