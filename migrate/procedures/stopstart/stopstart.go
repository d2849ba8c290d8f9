// Package stopstart is the migration without leader migration: the cloud
// loops stop in every kube-controller-manager, then the cloud-controller-
// manager starts. Rancher's "some downtime is acceptable" path and
// OpenShift's order; what it costs is the gap between the two.
package stopstart

import (
	"fmt"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lmconfig"
	"github.com/handover-sh/handover/migrate/procedures/rke2"
)

func init() {
	migrate.Register(migrate.Registration{Name: migrate.StopStart, Source: Source, Order: 60, Flavours: []string{"aws", "azure"},
		Managers: migrate.Managers{Config: migrate.NoMigration, CCMAt: migrate.N, CCMForms: migrate.ChartForms, CCMHeld: always}, Steps: Steps})
}

// always: the chart is installed only after the switch.
func always(migrate.Spec) bool { return true }

// Source is the path the procedure follows.
const Source = "Rancher: Migrating Amazon/Azure In-tree to Out-of-tree, \"if it's acceptable to have some downtime\" (stop, then start)"

// Steps switch every node to the external provider (which stops the
// in-tree cloud loops), then install the chart without leader migration.
func Steps(s migrate.Spec) *migrate.Procedure {
	return &migrate.Procedure{
		Title: fmt.Sprintf("Stop, then start: the cloud loops off in every kube-controller-manager %s, then the %s chart, no leader migration", s.From, s.CCMWorkload()),
		Steps: []migrate.Step{
			migrate.SwitchStep(s, false,
				migrate.Item{Kind: migrate.Rancher, Title: "cluster YAML", Body: rke2.CloudProviderYAML("external")},
				migrate.Item{Kind: migrate.Note, Body: "From the moment the last kube-controller-manager loses its provider until the cloud-controller-manager leads, no manager runs the cloud controllers: Services, routes and gone nodes wait. The coverage-gap check measures it; a rehearsal file that accepts the downtime says so with thresholds: {max-gap: ...}."}),
			migrate.DeployCCMStep(s),
			migrate.RolloutStep(s),
			migrate.SettleStep(s, lmconfig.CCM),
		},
	}
}
