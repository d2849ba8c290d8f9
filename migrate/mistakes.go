package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// Mistake names.
const (
	MistakeCCMWithoutLM       = "ccm-without-leader-migration"
	MistakeNoLeaseRBAC        = "no-lease-rbac"
	MistakeN1KCMWithLM        = "n1-kcm-leader-migration"
	MistakeNoCCM              = "no-ccm"
	MistakeLeaderNameDiffers  = "leader-name-differs"
	MistakeComponentTypo      = "ccm-component-typo"
	MistakeClusterNameDiffers = "ccm-cluster-name-differs"
	MistakeCCMNoNodeLifecycle = "ccm-without-node-lifecycle"
	MistakeCCMNoRoutes        = "ccm-without-route-controller"
	MistakeN1Hostname         = "n1-named-by-hostname"
	MistakeRKENoMetaHostname  = "rke-without-instance-metadata-hostname"
	MistakeN1NoCredentials    = "n1-without-image-credential-provider"
	MistakeNoNodeManager      = "chart-without-node-manager"
)

// mistake is one thing an operator gets wrong, for the negative
// rehearsals: a change to the Setup the steps are built from, and the note
// that says so in the plan of the step it shows in. handover must show
// what each causes.
type mistake struct {
	what   string // what is done wrong, for people
	detail string // appended to what in the plan's note
	at     string // the step key whose plan carries the note
	apply  func(*Setup, Spec)
	// inPlace: the mistake is in the cloud-controller-manager's manifest
	// alone, which an in-place upgrade writes as an added N+1 control
	// plane's (its plan carries the note too).
	inPlace bool
	// runbook is the procedure and flavour whose own option the mistake
	// leaves out; zero: the procedures registered with Mistakes.
	runbook runbook
	// also are runbooks it applies to beside those procedures, with the
	// step key whose plan carries the note there.
	also map[runbook]string
}

type runbook struct{ procedure, flavour string }

var mistakes = map[string]mistake{
	// The CCM runs its cloud controllers unconditionally while the version-N
	// kube-controller-managers still run theirs.
	MistakeCCMWithoutLM: {what: "the cloud-controller-manager is started without leader migration", at: addN1Key, inPlace: true,
		apply: func(st *Setup, _ Spec) { st.CCM.LeaderMigration, st.CCM.Config, st.CCM.ConfigPath = false, nil, "" }},
	// The CCM may not take the migration lease.
	MistakeNoLeaseRBAC: {what: "the cloud-controller-manager is not granted the migration lease", at: grantKey,
		apply: func(st *Setup, _ Spec) { st.GrantCCM = false }},
	// The task doc: kube-controller-manager N+1 MUST NOT have leader migration.
	MistakeN1KCMWithLM: {what: "kube-controller-manager N+1 keeps leader migration", at: newConfigKey,
		detail: " (enable-leader-migration, leader-migration-config=" + LMConfigPath + ")",
		apply: func(st *Setup, _ Spec) {
			st.NewKCM.LeaderMigration, st.NewKCM.Config, st.NewKCM.ConfigPath = true, st.CCM.Config.Clone(), lmconfig.KCM+":"+LMConfigPath
		}},
	// Kubelets are external but no CCM initialises their nodes.
	MistakeNoCCM: {what: "N+1 control planes join with external kubelets and no cloud-controller-manager", at: addN1Key,
		apply: func(st *Setup, _ Spec) { st.CCM = nil }},
	// The two managers' configurations name different leases.
	MistakeLeaderNameDiffers: {what: "the cloud-controller-manager's configuration names another migration lease", at: addN1Key, inPlace: true,
		apply: func(st *Setup, s Spec) {
			st.CCM.Config = st.CCM.Config.Clone()
			st.CCM.Config.LeaderName = s.LeaderName + "-ccm"
		}},
	// The CCM's configuration gives the controllers to kube-controller-manager.
	MistakeComponentTypo: {what: "the cloud-controller-manager's configuration gives the controllers to kube-controller-manager", at: addN1Key, inPlace: true,
		apply: func(st *Setup, _ Spec) {
			c := st.CCM.Config.Clone()
			for i := range c.ControllerLeaders {
				c.ControllerLeaders[i].Component = lmconfig.KCM
			}
			st.CCM.Config = c
		}},
	// The CCM is given another --cluster-name than kube-controller-manager
	// had: providers that name load balancers after the cluster (Azure's
	// is the cluster's name) then make a second one per Service.
	MistakeClusterNameDiffers: {what: "the cloud-controller-manager runs with another --cluster-name", at: addN1Key, inPlace: true,
		apply: func(st *Setup, s Spec) { st.CCM.ClusterName = s.Cluster + misnamedSuffix }},
	// The CCM's --controllers leaves the node-lifecycle controller off
	// while the configuration hands it over: after the hand-off no manager
	// removes a Node whose instance is gone (kubernetes/cloud-provider-aws#916).
	MistakeCCMNoNodeLifecycle: {what: "the cloud-controller-manager does not start the cloud-node-lifecycle controller it is handed", at: addN1Key, inPlace: true,
		apply: ccmWithout(lint.CloudNodeLifecycle)},
	// The same with the route controller: after the hand-off no manager
	// adds a joining node's route or removes a gone node's.
	MistakeCCMNoRoutes: {what: "the cloud-controller-manager does not start the route controller it is handed", at: addN1Key, inPlace: true,
		apply: ccmWithout(lint.NodeRoute)},
	// The N+1 control planes' kubelets (external) register under their
	// hostnames, not the names the provider gave the cluster's nodes (on
	// aws, the private DNS name the instance metadata gives): the
	// cloud-controller-manager finds no instance by that name
	// (rancher/rke2#7336, kubernetes/cloud-provider-aws#285). On a cloud
	// whose nodes are named by hostname anyway, it changes nothing.
	MistakeN1Hostname: {what: "version-N+1 control planes join named by their hostnames, not by their instances' metadata", at: addN1Key,
		detail: " (kubeadm nodeRegistration.name left to the hostname; no --hostname-override)",
		apply:  func(st *Setup, _ Spec) { st.N1ByHostname = true }},
	// The N+1 control planes' kubelets start without the provider's image
	// credential provider: from 1.27 no kubelet has the in-tree one
	// (kubernetes/kubernetes#120411; cloud-provider-aws
	// docs/credential_provider.md), so pulls from the cloud's registry
	// fail there. On a
	// cloud without a registry, it changes nothing.
	// Rancher's Azure runbook raises the version at its switch: the
	// version-N+1 control planes it brings are the same mistake's
	// (a 1.30 kubelet has no in-tree ACR provider, pkg/credentialprovider/
	// azure is gone from Kubernetes v1.30.14).
	MistakeN1NoCredentials: {what: "version-N+1 control planes' kubelets start without the provider's image credential provider", at: addN1Key,
		detail: " (no --image-credential-provider-config)", also: map[runbook]string{{RKE2, "azure"}: switchKey},
		apply: func(st *Setup, _ Spec) { st.N1NoImageCredentials = true }},
	// Azure's chart installed without its cloud-node-manager
	// (cloudNodeManager.enabled=false): the chart's manager runs with
	// --controllers=*,-cloud-node, so the Nodes of external kubelets are
	// never initialised — no ProviderID, the uninitialized taint kept. The
	// RKE2 runbook waits for the DaemonSet's rollout (its step 7).
	MistakeNoNodeManager: {what: "the chart is installed without its cloud-node-manager", at: deployKey, runbook: runbook{RKE2, "azure"},
		detail: " (cloudNodeManager.enabled=false)",
		apply:  func(st *Setup, _ Spec) { st.NoNodeManager = true }},
	// RKE's runbook: "You must enable useInstanceMetadataHostname for
	// node-driver clusters and for custom clusters if you don't provide a
	// custom node name via --node-name". Without it `rke up` restarts each
	// kubelet under its hostname (and RKE's node credentials let it
	// register that name): a second Node for the same instance while the
	// first, named by the private DNS name, stays NotReady
	// (rancher/rke2#7336, kubernetes/cloud-provider-aws#285).
	MistakeRKENoMetaHostname: {what: "the kubelets are switched to external-aws without useInstanceMetadataHostname", at: switchKey, runbook: runbook{RKE, "external-aws"},
		detail: " (no --hostname-override: each kubelet registers under its hostname)",
		apply:  func(st *Setup, _ Spec) { st.SwitchByHostname, st.SwitchByMetadata = true, false }},
}

// ccmWithout turns controller (canonical name) off in the CCM's
// --controllers, under the name that manager's version gives it.
func ccmWithout(controller string) func(*Setup, Spec) {
	return func(st *Setup, _ Spec) {
		off := "-" + ownName(lmconfig.CCM, st.CCM.Version, controller)
		if st.CCM.Controllers == "" {
			st.CCM.Controllers = "*," + off
			return
		}
		st.CCM.Controllers += "," + off
	}
}

// misnamedSuffix is what MistakeClusterNameDiffers appends to the cluster's
// name on the cloud-controller-manager.
const misnamedSuffix = "-ccm"

// noteAt is the step key whose plan carries the mistake's note in s's
// procedure.
func (mk mistake) noteAt(s Spec) string {
	if at, ok := mk.also[runbook{s.Procedure, s.Flavour}]; ok {
		return at
	}
	return mk.at
}

// mistakeVariants says how a mistake's procedure may run.
func mistakeVariants(mk mistake) string {
	if mk.inPlace {
		return "replacing nodes or in place"
	}
	return "replacing nodes"
}

// MistakeNames lists the mistakes.
func MistakeNames() []string {
	return slices.Sorted(maps.Keys(mistakes))
}

func (s Spec) validMistake() error {
	if s.Mistake == "" {
		return nil
	}
	if _, ok := mistakes[s.Mistake]; !ok {
		return fmt.Errorf("mistake %q: use one of %s", s.Mistake, strings.Join(MistakeNames(), ", "))
	}
	mk := mistakes[s.Mistake]
	if _, ok := mk.also[runbook{s.Procedure, s.Flavour}]; ok && !s.Variant.Rollback {
		return nil
	}
	if mk.runbook != (runbook{}) {
		if (runbook{s.Procedure, s.Flavour}) != mk.runbook || s.Variant.Rollback {
			return fmt.Errorf("mistake %s applies to --procedure %s --flavour %s only, forward", s.Mistake, mk.runbook.procedure, mk.runbook.flavour)
		}
		return nil
	}
	if !s.reg().Mistakes || (s.Variant.InPlace && !mk.inPlace) || s.Variant.Rollback {
		return fmt.Errorf("mistake %s applies to %s, forward only, %s", s.Mistake,
			accepting(func(r Registration) bool { return r.Mistakes }), mistakeVariants(mk))
	}
	return nil
}
