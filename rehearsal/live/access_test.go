package live_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"

	"github.com/handover-sh/handover/rehearsal/live"
)

// A read the cluster refuses is an error saying what prints the roles;
// another failure is not blamed on permissions.
func TestReadSaysWhatGrantsARefusedRead(t *testing.T) {
	for _, c := range []struct{ verb, resource string }{
		{"list", "nodes"}, {"list", "services"}, {"list", "pods"},
		{"get", "configmaps"}, {"get", "replicasets"}, {"get", "deployments"},
	} {
		t.Run(c.verb+" "+c.resource, func(t *testing.T) {
			for _, refusal := range []error{
				apierrors.NewForbidden(schema.GroupResource{Resource: c.resource}, "", errors.New("RBAC: access denied")),
				apierrors.NewInternalError(errors.New("etcd timed out")),
			} {
				tc := awsCluster()
				tc.deployed(2)
				client := tc.client()
				client.PrependReactor(c.verb, c.resource, func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, refusal
				})
				_, err := live.Read(context.Background(), client, "lmx.kubeconfig")
				forbidden := apierrors.IsForbidden(refusal)
				switch {
				case err == nil:
					t.Fatalf("%v: Read read the cluster", refusal)
				case forbidden != apierrors.IsForbidden(err):
					t.Errorf("%v: the error %v does not keep the API's", refusal, err)
				case forbidden != strings.Contains(err.Error(), "--print-rbac"):
					t.Errorf("%v: the error %q, want --print-rbac named only for a refused read", refusal, err)
				}
			}
		})
	}
}

// The roles describe needs grant get, list and watch only: the managers'
// pods, their ConfigMaps, ReplicaSets and Deployments in kube-system
// alone; nodes and Services cluster-wide; the API server's /version.
func TestRolesGrantOnlyReads(t *testing.T) {
	roles := parseRoles(t, live.Roles().YAML())
	cr, r := roles["ClusterRole"], roles["Role"]
	if len(roles) != 2 || cr.Name != "handover-describer" || r.Name != "handover-describer" || r.Namespace != "kube-system" {
		t.Fatalf("roles %+v: want a ClusterRole and a Role in kube-system, both handover-describer", roles)
	}
	want := map[string][]string{
		"ClusterRole": {"/nonResourceURL/version", "core/nodes", "core/services"},
		"Role":        {"apps/deployments", "apps/replicasets", "core/configmaps", "core/pods"},
	}
	for kind, role := range roles {
		var granted []string
		for _, rule := range role.Rules {
			if !slices.Equal(rule.Verbs, []string{"get", "list", "watch"}) && !(len(rule.NonResourceURLs) > 0 && slices.Equal(rule.Verbs, []string{"get"})) {
				t.Errorf("%s grants %q on %q%q: want get, list and watch only", kind, rule.Verbs, rule.Resources, rule.NonResourceURLs)
			}
			if len(rule.ResourceNames) > 0 {
				t.Errorf("%s names resources %q", kind, rule.ResourceNames)
			}
			granted = append(granted, grants(rule)...)
		}
		slices.Sort(granted)
		if !slices.Equal(granted, want[kind]) {
			t.Errorf("%s grants %q, want %q", kind, granted, want[kind])
		}
	}
}

// Every request Read makes is one the roles grant, and a read.
func TestReadAsksOnlyWhatTheRolesGrant(t *testing.T) {
	roles := parseRoles(t, live.Roles().YAML())
	tc := awsCluster()
	tc.deployed(2)
	client := tc.client()
	if _, err := live.Read(context.Background(), client, "lmx.kubeconfig"); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, a := range client.Actions() {
		r := a.GetResource()
		if r.Resource == "version" && r.Group == "" {
			r.Resource = "/nonResourceURL/version" // the discovery client's GET /version
		}
		kinds[r.Resource] = true
		if !allowed(roles, a.GetVerb(), r.Group, r.Resource, a.GetNamespace()) {
			t.Errorf("Read %s %s %s in %q: not granted", a.GetVerb(), r.Group, r.Resource, a.GetNamespace())
		}
	}
	for _, r := range []string{"nodes", "services", "pods", "configmaps", "replicasets", "deployments"} {
		if !kinds[r] {
			t.Errorf("Read never read %s (%v): the test reads less than it means to", r, kinds)
		}
	}
}

// parseRoles reads the printed roles by kind.
func parseRoles(t *testing.T, printed string) map[string]rbacv1.ClusterRole {
	t.Helper()
	out := map[string]rbacv1.ClusterRole{}
	for _, doc := range strings.Split(printed, "---\n") {
		var r rbacv1.ClusterRole
		if err := yaml.UnmarshalStrict([]byte(doc), &r); err != nil {
			t.Fatalf("%v:\n%s", err, doc)
		}
		if _, dup := out[r.Kind]; dup {
			t.Fatalf("two %ss:\n%s", r.Kind, printed)
		}
		out[r.Kind] = r
	}
	return out
}

// grants are a rule's resources as group/resource (core for ""), and its
// URLs.
func grants(rule rbacv1.PolicyRule) []string {
	var out []string
	for _, g := range rule.APIGroups {
		for _, r := range rule.Resources {
			out = append(out, groupName(g)+"/"+r)
		}
	}
	for _, u := range rule.NonResourceURLs {
		out = append(out, "/nonResourceURL"+u)
	}
	return out
}

// allowed says whether the roles let verb read group/resource in ns ("":
// cluster-wide); resource "/nonResourceURL/PATH" is a URL.
func allowed(roles map[string]rbacv1.ClusterRole, verb, group, resource, ns string) bool {
	want := groupName(group) + "/" + resource
	if strings.HasPrefix(resource, "/nonResourceURL") {
		want = resource
	}
	for kind, role := range roles {
		if kind == "Role" && ns != role.Namespace {
			continue
		}
		for _, rule := range role.Rules {
			if slices.Contains(rule.Verbs, verb) && slices.Contains(grants(rule), want) {
				return true
			}
		}
	}
	return false
}

// groupName is an API group's name, core for "".
func groupName(g string) string {
	if g == "" {
		return "core"
	}
	return g
}
