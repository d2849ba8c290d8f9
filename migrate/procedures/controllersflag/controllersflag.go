// Package controllersflag is KubeOne's migration (kubeone migrate
// to-ccm-csi): no leader migration; --controllers keeps the cloud loops out
// of the in-tree kube-controller-managers, the cloud-controller-manager
// starts, and only then do the nodes switch to the external provider.
package controllersflag

import (
	"fmt"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

func init() {
	migrate.Register(migrate.Registration{Name: migrate.ControllersFlag, Source: Source, Order: 70,
		Managers: migrate.Managers{Config: migrate.NoMigration, CCMAt: migrate.N, KCMControllers: Exclusion,
			CCMForms: []string{managers.Deployment, managers.DaemonSet}}, Steps: Steps})
}

// Source is the tool whose procedure this is.
const Source = "KubeOne: CCM/CSI migration (kubeone migrate to-ccm-csi, then --complete)"

// Exclusion is the --controllers KubeOne gives kube-controller-manager
// while the in-tree provider stays on: read from kubermatic/kubeone,
// pkg/templates/kubeadm/v1beta3/kubeadm.go (NewConfig, "we're in the CCM
// migration process"). No test holds it there: the module proxy does not
// serve k8c.io/kubeone. The names in it are the managers' --controllers
// aliases, which migrate/lint's tables hold to the managers' source.
const Exclusion = "*,bootstrapsigner,tokencleaner,-cloud-node-lifecycle,-route,-service"

// Steps are KubeOne's two phases on the kind cluster.
func Steps(s migrate.Spec) *migrate.Procedure {
	ctl := s.KCMControllers()
	return &migrate.Procedure{
		Title: fmt.Sprintf("KubeOne: --controllers keeps the cloud loops out of kube-controller-manager %s, the %s starts, then the nodes switch", s.From, s.CCMWorkload()),
		Steps: []migrate.Step{
			migrate.RollStep(s, "exclude-cloud-controllers", "Keep the cloud loops out of every kube-controller-manager (--controllers), the in-tree provider still on, one node at a time",
				s.NSide(), lmconfig.KCM, migrate.SetControllers(ctl, s.KCMArgs), append([]migrate.Item{
					migrate.FlagsPlan(lmconfig.KCM, "set", "--controllers="+ctl),
					{Kind: migrate.Command, Title: "KubeOne (phase 1, with the CCM below)", Body: "kubeone migrate to-ccm-csi --manifest kubeone.yaml -t tf.json   # cloudProvider.external: true"},
					{Kind: migrate.Note, Body: "From the restart of the kube-controller-manager that leads until the cloud-controller-manager leads, no manager runs the cloud controllers; the coverage-gap check measures it."},
				}, s.KCMArgsPlan()...), nil),
			migrate.DeployCCMStep(s),
			migrate.RolloutStep(s),
			migrate.SwitchStep(s, false,
				migrate.Item{Kind: migrate.Command, Title: "KubeOne (phase 2, once every worker is rolled)", Body: "kubeone migrate to-ccm-csi --complete --manifest kubeone.yaml -t tf.json"},
				migrate.Item{Kind: migrate.Note, Body: "KubeOne regenerates the manifests without the --controllers exclusion here; handover leaves it, which changes nothing once kube-controller-manager has no cloud provider."}),
			migrate.SettleStep(s, lmconfig.CCM),
		},
	}
}
