package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Mistakes are the task doc done wrong on purpose, for the negative
// rehearsals: each is one thing an operator gets wrong, and handover must
// show what it causes.
var Mistakes = map[string]string{
	// The CCM runs its cloud controllers unconditionally while the version-N
	// kube-controller-managers still run theirs.
	MistakeCCMWithoutLM: "the cloud-controller-manager is started without leader migration",
	// The CCM may not take the migration lease.
	MistakeNoLeaseRBAC: "the cloud-controller-manager is not granted the migration lease",
	// The task doc: kube-controller-manager N+1 MUST NOT have leader migration.
	MistakeN1KCMWithLM: "kube-controller-manager N+1 keeps leader migration",
	// Kubelets are external but no CCM initialises their nodes.
	MistakeNoCCM: "N+1 control planes join with external kubelets and no cloud-controller-manager",
	// The two managers' configurations name different leases.
	MistakeLeaderNameDiffers: "the cloud-controller-manager's configuration names another migration lease",
	// The CCM's configuration gives the controllers to kube-controller-manager.
	MistakeComponentTypo: "the cloud-controller-manager's configuration gives the controllers to kube-controller-manager",
	// The CCM is given another --cluster-name than kube-controller-manager
	// had: providers that name load balancers after the cluster (Azure's
	// is the cluster's name) then make a second one per Service.
	MistakeClusterNameDiffers: "the cloud-controller-manager runs with another --cluster-name",
}

// Mistake names.
const (
	MistakeCCMWithoutLM       = "ccm-without-leader-migration"
	MistakeNoLeaseRBAC        = "no-lease-rbac"
	MistakeN1KCMWithLM        = "n1-kcm-leader-migration"
	MistakeNoCCM              = "no-ccm"
	MistakeLeaderNameDiffers  = "leader-name-differs"
	MistakeComponentTypo      = "ccm-component-typo"
	MistakeClusterNameDiffers = "ccm-cluster-name-differs"
)

// misnamedSuffix is what MistakeClusterNameDiffers appends to the cluster's
// name on the cloud-controller-manager.
const misnamedSuffix = "-ccm"

// MistakeNames lists the mistakes.
func MistakeNames() []string {
	return slices.Sorted(maps.Keys(Mistakes))
}

func (s Spec) validMistake() error {
	if s.Mistake == "" {
		return nil
	}
	if _, ok := Mistakes[s.Mistake]; !ok {
		return fmt.Errorf("mistake %q: use one of %s", s.Mistake, strings.Join(MistakeNames(), ", "))
	}
	if s.Procedure != TaskDoc || s.Variant.InPlace || s.Variant.Rollback {
		return fmt.Errorf("mistake %s applies to the taskdoc procedure, replacing nodes, forward only", s.Mistake)
	}
	return nil
}

func (s Spec) mistaken(m string) bool { return s.Mistake == m }
