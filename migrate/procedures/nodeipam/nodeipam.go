// Package nodeipam is the task doc with the node IPAM controller moved too.
package nodeipam

import (
	"fmt"

	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/procedures/taskdoc"
)

func init() {
	migrate.Register(migrate.Registration{Name: migrate.NodeIPAM, Source: taskdoc.Source + " (Node IPAM controller migration)", Order: 50,
		Variants: migrate.Variant{Disable: true}, Also: []string{lint.NodeIPAM},
		Managers: migrate.Managers{Config: migrate.PerComponent, CCMAt: migrate.N1, NewKCM: true, CCMForms: migrate.StaticPodForm}, Steps: Steps})
}

// Steps are the task doc with node IPAM moved too: node-ipam-controller
// is listed in both configurations, and the N+1 cloud-controller-manager's
// node-ipam-controller takes pod CIDRs from the simulated cloud.
func Steps(s migrate.Spec) *migrate.Procedure {
	p := taskdoc.Steps(s)
	p.Title = fmt.Sprintf("Migrate the cloud controllers and node IPAM from kube-controller-manager %s to cloud-controller-manager %s", s.From, s.To)
	return p
}
