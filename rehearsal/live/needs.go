package live

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/handover-sh/handover/verify/readonly"
)

// Needs are what Read reads: it lists and gets, and never writes.
var Needs = []readonly.Need{
	{Resource: "nodes", Why: "the kubelets' versions, the control planes and workers, zones, node names and ProviderIDs"},
	{Resource: "services", Why: "the Services of type LoadBalancer, by count"},
	{Resource: "pods", Namespace: "kube-system", Why: "the controller managers, their flags, images and mounts"},
	{Resource: "configmaps", Namespace: "kube-system", Why: "the leader-migration configurations mounted into the managers (only those are read)"},
	{Group: "apps", Resource: "replicasets", Namespace: "kube-system", Why: "the Deployment a manager's pod belongs to"},
	{Group: "apps", Resource: "deployments", Namespace: "kube-system", Why: "a cloud-controller-manager Deployment's replicas"},
}

// Roles are the roles describe needs, as --print-rbac prints them.
func Roles() readonly.Roles {
	return readonly.Roles{Name: "handover-describer", Reader: "handover describe", Needs: Needs, URLs: []string{"/version"}}
}

// denied wraps err, saying for a refused read what grants it.
func denied(what string, err error) error {
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		return fmt.Errorf("%s: %w (handover describe --print-rbac prints the roles it needs)", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
