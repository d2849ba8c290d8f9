package migrate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// MaxControlPlanes bounds N: every control plane of a kubeadm cluster is a
// member of its stacked etcd, and etcd advises seven members at most
// (etcd.io/docs/v3.5/faq, "What is maximum cluster size?"); the procedures
// join one more while they replace one.
const MaxControlPlanes = 7

// ValidControlPlanes checks N: at least one, at most MaxControlPlanes.
func ValidControlPlanes(n int) error {
	switch {
	case n < 1:
		return fmt.Errorf("the cluster needs at least one control plane")
	case n > MaxControlPlanes:
		return fmt.Errorf("--control-planes (controlPlanes) %d: at most %d, as each control plane is a member of the cluster's stacked etcd and etcd advises seven members at most", n, MaxControlPlanes)
	}
	return nil
}

// validCounts rejects counts no cluster the procedures work on has.
func (s Spec) validCounts() []string {
	var errs []string
	if err := ValidControlPlanes(s.ControlPlanes); err != nil {
		errs = append(errs, err.Error())
	}
	if s.CCMReplicas > MaxControlPlanes {
		errs = append(errs, fmt.Sprintf("--ccm-replicas (ccm.replicas) %d: at most one per control plane (never two on a node), so at most %d", s.CCMReplicas, MaxControlPlanes))
	}
	return errs
}

// ValidLeaderName checks a migration lease's name as the API server checks
// a Lease's: a DNS-1123 subdomain. Commands that name the lease and the
// RBAC rules that grant it take it as it is.
func ValidLeaderName(name string) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("--leader-name (leaderName) %q is not a Lease name: %s", name, strings.Join(errs, "; "))
	}
	return nil
}
