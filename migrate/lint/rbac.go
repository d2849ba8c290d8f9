package lint

import (
	"context"
	"fmt"
	"strings"

	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Identity is who a manager authenticates as.
type Identity struct {
	Component string
	User      string
	Groups    []string
	Role      string // the leader-locking Role to extend, for the fix
}

// LeaseVerbs are what leader election does with the migration lease.
var LeaseVerbs = []string{"get", "create", "update"}

// CheckRBAC asks the API server whether each identity may take the
// migration lease, with SubjectAccessReviews, so it sees every binding.
func CheckRBAC(ctx context.Context, client kubernetes.Interface, leaderName string, ids ...Identity) (Findings, error) {
	var out Findings
	for _, id := range ids {
		var denied []string
		for _, verb := range LeaseVerbs {
			ok, err := allowed(ctx, client, id, verb, leaderName)
			if err != nil {
				return out, fmt.Errorf("asking whether %s may %s lease %s: %w", id.User, verb, leaderName, err)
			}
			if !ok {
				denied = append(denied, verb)
			}
		}
		if len(denied) > 0 {
			out = append(out, Finding{Error, "RBAC " + id.User,
				fmt.Sprintf("%s may not %s the migration lease kube-system/%s: it can never take the migration lock", id.Component, strings.Join(denied, "/"), leaderName),
				fmt.Sprintf(`kubectl -n kube-system patch role %s --type=json -p '[{"op":"add","path":"/rules/-","value":{"apiGroups":["coordination.k8s.io"],"resources":["leases"],"resourceNames":["%s"],"verbs":["create","list","get","update"]}}]'`, id.Role, leaderName)})
		}
	}
	return out, nil
}

func allowed(ctx context.Context, client kubernetes.Interface, id Identity, verb, name string) (bool, error) {
	sar := &authzv1.SubjectAccessReview{Spec: authzv1.SubjectAccessReviewSpec{
		User: id.User, Groups: id.Groups,
		ResourceAttributes: &authzv1.ResourceAttributes{Namespace: "kube-system", Verb: verb,
			Group: "coordination.k8s.io", Resource: "leases", Name: name},
	}}
	r, err := client.AuthorizationV1().SubjectAccessReviews().Create(ctx, sar, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return r.Status.Allowed, nil
}
