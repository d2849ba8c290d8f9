package migrate

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// usesConfigFile is false for the procedure that relies on the managers'
// built-in default configuration.
func (s Spec) usesConfigFile() bool { return s.Procedure != DefaultConfig }

// defaultConfig is the task doc's "Default Configuration": both managers
// with --enable-leader-migration and no --leader-migration-config.
func defaultConfig(s Spec) *Procedure {
	p := &Procedure{Name: DefaultConfig, Source: taskDocSource + " (Default Configuration)",
		Title: fmt.Sprintf("Migrate with the built-in default configuration, %s to %s", s.From, s.To)}
	p.Steps = []Step{
		grantStep(s, cloudcluster.CCMUser),
		rollStep("enable-leader-migration", "Enable leader migration, with no configuration file, on every version-"+s.From+" kube-controller-manager",
			s.From, lmconfig.KCM, enableLM(false),
			[]Item{flagsPlan(lmconfig.KCM, "add", lmFlags(false)...),
				{Kind: Note, Body: "`handover lint` flags this: the built-in default names route-controller and service-controller, which match no controller of " + s.From + " or " + s.To + " (their names are node-route-controller and service-lb-controller), so both managers run those two on their own main lease; only cloud-node-lifecycle-controller migrates. Run with --force to rehearse it."}},
			waitOwner(lmconfig.KCM)),
		n1ConfigStep(s),
	}
	for i := 1; i <= s.ControlPlanes; i++ {
		p.Steps = append(p.Steps, addN1Step(s, i), removeNStep(s, i))
	}
	p.Steps = append(p.Steps, settleStep(s, lmconfig.CCM))
	if s.Variant.Disable {
		p.Steps = append(p.Steps, disableStep(s))
	}
	return p
}

// nodeIPAM is the task doc with node IPAM moved too: node-ipam-controller
// is listed in both configurations, and the N+1 cloud-controller-manager's
// node-ipam-controller takes pod CIDRs from the simulated cloud.
func nodeIPAM(s Spec) *Procedure {
	p := taskDoc(s)
	p.Name = NodeIPAM
	p.Title = fmt.Sprintf("Migrate the cloud controllers and node IPAM from kube-controller-manager %s to cloud-controller-manager %s", s.From, s.To)
	p.Source = taskDocSource + " (Node IPAM controller migration)"
	return p
}

// ccmWorkloadDisableStep removes leader migration from the chart's
// cloud-controller-manager once it runs alone (the runbooks' optional step).
func ccmWorkloadDisableStep(s Spec) Step {
	manifest := s.ccmManifest(false)
	return Step{
		Name:  "remove-ccm-leader-migration",
		Title: "Remove --enable-leader-migration from the cloud-controller-manager chart",
		Plan:  []Item{{Kind: File, Title: "cloud-controller-manager chart without leader migration (kubectl apply -f)", Body: manifest}},
		Do: func(ctx context.Context, e *Env) error {
			if err := e.Cluster.Apply(ctx, manifest); err != nil {
				return err
			}
			return e.Client.CoreV1().ConfigMaps("kube-system").Delete(ctx, cloudcluster.LeaderMigrationConfigMap, deleteOpts)
		},
		Wait: Wait{Name: "rolled out without leader migration", Timeout: 3 * time.Minute,
			Until: func(ctx context.Context, e *Env) (bool, error) {
				ok, err := e.ccmRolledOut(ctx, s)
				if !ok || err != nil {
					return ok, err
				}
				return waitOwner(lmconfig.CCM)(ctx, e)
			}},
	}
}

var deleteOpts = metav1.DeleteOptions{}
