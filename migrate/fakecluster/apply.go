package fakecluster

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	authzv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
)

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

// Apply creates or replaces every object of a multi-document manifest, as
// `kubectl apply` of whole objects does.
func (c *Cluster) Apply(_ context.Context, manifest string) error {
	c.mu.Lock()
	c.applied = append(c.applied, manifest)
	c.mu.Unlock()
	for _, doc := range docSep.Split(manifest, -1) {
		if strings.TrimSpace(doc) == "" {
			continue
		}
		obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
		if err != nil {
			return fmt.Errorf("apply: %w", err)
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return err
		}
		gvr, _ := meta.UnsafeGuessKindToResource(*gvk)
		t := c.Client.Tracker()
		if _, err := t.Get(gvr, m.GetNamespace(), m.GetName()); apierrors.IsNotFound(err) {
			err = t.Create(gvr, obj, m.GetNamespace())
			if err != nil {
				return err
			}
			continue
		}
		if err := t.Update(gvr, obj, m.GetNamespace()); err != nil {
			return err
		}
	}
	return nil
}

// review answers a SubjectAccessReview from the Roles, ClusterRoles and
// their bindings in the clientset: enough of RBAC for the lease grants.
func (c *Cluster) review(a k8stesting.Action) (bool, runtime.Object, error) {
	sar := a.(k8stesting.CreateAction).GetObject().(*authzv1.SubjectAccessReview)
	out := sar.DeepCopy()
	out.Status.Allowed = c.allowed(sar.Spec)
	return true, out, nil
}

// allowed reads the tracker, not the clientset: a reactor runs while the
// clientset is locked.
func (c *Cluster) allowed(s authzv1.SubjectAccessReviewSpec) bool {
	ra := s.ResourceAttributes
	if ra == nil {
		return false
	}
	t := c.Client.Tracker()
	rbac := rbacv1.SchemeGroupVersion
	list, err := t.List(rbac.WithResource("rolebindings"), rbac.WithKind("RoleBinding"), ra.Namespace)
	if err != nil {
		return false
	}
	for _, b := range list.(*rbacv1.RoleBindingList).Items {
		if !bound(b.Subjects, s) {
			continue
		}
		var rules []rbacv1.PolicyRule
		if b.RoleRef.Kind == "Role" {
			if r, err := t.Get(rbac.WithResource("roles"), ra.Namespace, b.RoleRef.Name); err == nil {
				rules = r.(*rbacv1.Role).Rules
			}
		} else if r, err := t.Get(rbac.WithResource("clusterroles"), "", b.RoleRef.Name); err == nil {
			rules = r.(*rbacv1.ClusterRole).Rules
		}
		if slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool { return covers(r, ra) }) {
			return true
		}
	}
	return false
}

func bound(subjects []rbacv1.Subject, s authzv1.SubjectAccessReviewSpec) bool {
	for _, sub := range subjects {
		switch sub.Kind {
		case rbacv1.UserKind:
			if sub.Name == s.User {
				return true
			}
		case rbacv1.GroupKind:
			if slices.Contains(s.Groups, sub.Name) {
				return true
			}
		case rbacv1.ServiceAccountKind:
			if "system:serviceaccount:"+sub.Namespace+":"+sub.Name == s.User {
				return true
			}
		}
	}
	return false
}

func covers(r rbacv1.PolicyRule, ra *authzv1.ResourceAttributes) bool {
	has := func(list []string, v string) bool { return slices.Contains(list, v) || slices.Contains(list, "*") }
	names := len(r.ResourceNames) == 0 || slices.Contains(r.ResourceNames, ra.Name)
	return has(r.APIGroups, ra.Group) && has(r.Resources, ra.Resource) && has(r.Verbs, ra.Verb) && names
}
