package migrate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// Leader-locking Roles the task doc extends with the migration lease.
const kcmLeaderLockingRole = "system::leader-locking-kube-controller-manager"

// identities are who the managers authenticate as.
func identities(ccmUser, ccmRole string) []lint.Identity {
	return []lint.Identity{
		{Component: lmconfig.KCM, User: "system:kube-controller-manager", Role: kcmLeaderLockingRole},
		{Component: lmconfig.CCM, User: ccmUser, Groups: ccmGroups(ccmUser), Role: ccmRole},
	}
}

const ccmServiceAccount = "system:serviceaccount:kube-system:cloud-controller-manager"

func ccmGroups(user string) []string {
	if ns, _, ok := serviceAccount(user); ok {
		return []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}
	}
	return []string{"system:authenticated"}
}

// serviceAccount splits system:serviceaccount:NS:NAME.
func serviceAccount(user string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(user, "system:serviceaccount:")
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, ":")
	return namespace, name, ok
}

// saLeaseBinding binds the cloud-controller-manager's leader-locking Role
// (where the migration lease is granted) to the service account of a
// user's own manifest; "" for handover's own identities, which the Role's
// binding names already.
func saLeaseBinding(user, role string) string {
	ns, name, ok := serviceAccount(user)
	if !ok || user == ccmServiceAccount {
		return ""
	}
	return `apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: handover:leader-locking:` + ns + `:` + name + `
  namespace: kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ` + role + `
subjects:
- kind: ServiceAccount
  name: ` + name + `
  namespace: ` + ns + `
`
}

// migrationLeaseRule is the rule the task doc adds to both Roles.
func migrationLeaseRule(leaderName string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"},
		ResourceNames: []string{leaderName}, Verbs: []string{"create", "list", "get", "update"}}
}

// grantLease adds the migration lease rule to a Role unless it has it. The
// task doc's `--type=merge` patch would replace the Role's rules (and with
// them the main lease); a JSON patch appends.
func (e *Env) grantLease(ctx context.Context, role, lease string) error {
	r, err := e.Client.RbacV1().Roles("kube-system").Get(ctx, role, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("role kube-system/%s: %w", role, err)
	}
	want := migrationLeaseRule(lease)
	for _, rule := range r.Rules {
		if len(rule.ResourceNames) == 1 && rule.ResourceNames[0] == lease {
			return nil
		}
	}
	patch, _ := json.Marshal([]map[string]any{{"op": "add", "path": "/rules/-", "value": want}})
	_, err = e.Client.RbacV1().Roles("kube-system").Patch(ctx, role, types.JSONPatchType, patch, metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("patching role kube-system/%s: %w", role, err)
	}
	return nil
}

// leaseGranted is true when both identities may take the migration lease.
func leaseGranted(ccmUser string) func(context.Context, *Env) (bool, error) {
	return func(ctx context.Context, e *Env) (bool, error) {
		fs, err := lint.CheckRBAC(ctx, e.Client, e.Spec.LeaderName, identities(ccmUser, e.Spec.Provider().CCMLeaderLockingRole)...)
		if err != nil {
			return false, err
		}
		return len(fs) == 0, nil
	}
}

func grantPatchCommand(role, leaderName string) string {
	rule, _ := json.Marshal(migrationLeaseRule(leaderName))
	return shellJoin("kubectl", "-n", "kube-system", "patch", "role", role, "--type=json", "-p", `[{"op":"add","path":"/rules/-","value":`+string(rule)+`}]`)
}

// GrantStep is the task doc's "Grant access to Migration Lease", preceded by
// the cloud-controller-manager's own RBAC (ClusterRole, leader-locking Role).
func GrantStep(s Spec, ccmUser string) Step {
	st := s.setup()
	if !st.GrantCCM {
		return noCCMGrantStep(s, st.Notes[grantKey])
	}
	// Each manager may take the lease its own configuration names, as when
	// the grants are written from each side's configuration.
	other := st.ccmLeaderName()
	if other == s.LeaderName {
		other = ""
	}
	plan := []Item{
		{Kind: File, Title: "cloud-controller-manager RBAC (kubectl apply -f)", Body: s.Provider().CCMRBAC},
		{Kind: Command, Body: grantPatchCommand(kcmLeaderLockingRole, s.LeaderName)},
		{Kind: Command, Body: grantPatchCommand(s.Provider().CCMLeaderLockingRole, s.LeaderName)},
		{Kind: Note, Body: "The task doc's `kubectl patch --type=merge` replaces the Role's rules, dropping the main-lease rule; a JSON patch appends instead."},
	}
	if other != "" {
		plan = append(plan, Item{Kind: Command, Body: grantPatchCommand(s.Provider().CCMLeaderLockingRole, other) +
			"   # DELIBERATE MISTAKE: the lease the cloud-controller-manager's configuration names"})
	}
	binding := saLeaseBinding(ccmUser, s.Provider().CCMLeaderLockingRole)
	if binding != "" {
		plan = append(plan, Item{Kind: File, Title: "your manifest's service account may take the leases too (kubectl apply -f)", Body: binding})
	}
	plan = append(plan, st.Notes[grantKey]...)
	return Step{
		Name:  "grant-migration-lease",
		Title: "Grant both managers access to the migration lease " + s.LeaderName,
		Plan:  plan,
		Done:  leaseGranted(ccmUser),
		Do: func(ctx context.Context, e *Env) error {
			rbac := s.Provider().CCMRBAC
			if binding != "" {
				rbac += "---\n" + binding
			}
			if err := e.Cluster.Apply(ctx, rbac); err != nil {
				return err
			}
			for _, role := range []string{kcmLeaderLockingRole, s.Provider().CCMLeaderLockingRole} {
				if err := e.grantLease(ctx, role, e.Spec.LeaderName); err != nil {
					return err
				}
			}
			if other != "" {
				return e.grantLease(ctx, s.Provider().CCMLeaderLockingRole, other)
			}
			return nil
		},
		Wait: Wait{Name: "SubjectAccessReviews allow both managers the lease", Timeout: s.Intervals.Of(IntervalLeaseGrant), Until: leaseGranted(ccmUser)},
	}
}

// noCCMGrantStep is the grant done wrong: the cloud-controller-manager gets
// its own RBAC but not the migration lease; kube-controller-manager does.
func noCCMGrantStep(s Spec, notes []Item) Step {
	kcmOnly := func(ctx context.Context, e *Env) (bool, error) {
		fs, err := lint.CheckRBAC(ctx, e.Client, e.Spec.LeaderName, identities("", "")[:1]...)
		return err == nil && len(fs) == 0, err
	}
	return Step{
		Name:  "grant-migration-lease",
		Title: "Grant kube-controller-manager access to the migration lease " + s.LeaderName + " (and forget the cloud-controller-manager)",
		Plan: append([]Item{
			{Kind: File, Title: "cloud-controller-manager RBAC (kubectl apply -f)", Body: s.Provider().CCMRBAC},
			{Kind: Command, Body: grantPatchCommand(kcmLeaderLockingRole, s.LeaderName)},
		}, notes...),
		Done: kcmOnly,
		Do: func(ctx context.Context, e *Env) error {
			if err := e.Cluster.Apply(ctx, s.Provider().CCMRBAC); err != nil {
				return err
			}
			return e.grantLease(ctx, kcmLeaderLockingRole, e.Spec.LeaderName)
		},
		Wait: Wait{Name: "a SubjectAccessReview allows kube-controller-manager the lease", Timeout: s.Intervals.Of(IntervalLeaseGrant), Until: kcmOnly},
	}
}
