package readonly

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/yaml"
)

type okTransport struct{ calls int }

func (o *okTransport) RoundTrip(*http.Request) (*http.Response, error) {
	o.calls++
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
}

func TestGuardLetsOnlyReadsThrough(t *testing.T) {
	next := &okTransport{}
	g := Guard(next)
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		r, _ := http.NewRequest(m, "https://api/api/v1/nodes?watch=true", nil)
		if _, err := g.RoundTrip(r); err != nil {
			t.Fatalf("%s refused: %v", m, err)
		}
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, "CONNECT"} {
		r, _ := http.NewRequest(m, "https://api/api/v1/nodes/n1", nil)
		_, err := g.RoundTrip(r)
		var w *ErrWrite
		if !errors.As(err, &w) || w.Method != m {
			t.Fatalf("%s went through the guard: %v", m, err)
		}
	}
	if next.calls != 2 {
		t.Fatalf("%d requests reached the transport, want the 2 reads", next.calls)
	}
}

func TestPreflightNamesWhatIsDenied(t *testing.T) {
	c := fake.NewSimpleClientset()
	c.PrependReactor("list", "events", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "events"}, "", errors.New("no"))
	})
	c.PrependReactor("list", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, "", errors.New("no"))
	})
	// Listing allowed, watching not: the informers would only retry.
	c.PrependWatchReactor("nodes", func(k8stesting.Action) (bool, watch.Interface, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("no"))
	})
	err := Preflight(context.Background(), c, time.Second)
	if !IsDenied(err) || !strings.Contains(err.Error(), "list events; list leases.coordination.k8s.io in kube-system; watch nodes") ||
		!strings.Contains(err.Error(), "--print-rbac") {
		t.Fatalf("err = %v", err)
	}
	for _, a := range c.Actions() {
		if v := a.GetVerb(); v != "list" && v != "get" && v != "watch" {
			t.Fatalf("preflight sent %s %s", a.GetVerb(), a.GetResource())
		}
	}
	if err := Preflight(context.Background(), fake.NewSimpleClientset(), time.Second); err != nil {
		t.Fatalf("everything allowed: %v", err)
	}
}

// printed is RBAC's documents, decoded strictly by kind.
type printed struct {
	clusterRoles        []rbacv1.ClusterRole
	roles               []rbacv1.Role
	clusterRoleBindings []rbacv1.ClusterRoleBinding
	roleBindings        []rbacv1.RoleBinding
}

func decodeRBAC(t *testing.T, out string) printed {
	t.Helper()
	var p printed
	for _, doc := range strings.Split(out, "\n---\n") {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatal(err)
		}
		var err error
		switch meta.Kind {
		case "ClusterRole":
			p.clusterRoles = append(p.clusterRoles, rbacv1.ClusterRole{})
			err = yaml.UnmarshalStrict([]byte(doc), &p.clusterRoles[len(p.clusterRoles)-1])
		case "Role":
			p.roles = append(p.roles, rbacv1.Role{})
			err = yaml.UnmarshalStrict([]byte(doc), &p.roles[len(p.roles)-1])
		case "ClusterRoleBinding":
			p.clusterRoleBindings = append(p.clusterRoleBindings, rbacv1.ClusterRoleBinding{})
			err = yaml.UnmarshalStrict([]byte(doc), &p.clusterRoleBindings[len(p.clusterRoleBindings)-1])
		case "RoleBinding":
			p.roleBindings = append(p.roleBindings, rbacv1.RoleBinding{})
			err = yaml.UnmarshalStrict([]byte(doc), &p.roleBindings[len(p.roleBindings)-1])
		default:
			t.Fatalf("a document of kind %q:\n%s", meta.Kind, doc)
		}
		if err != nil {
			t.Fatalf("%v:\n%s", err, doc)
		}
	}
	return p
}

// grants are the group/resource pairs rules allow, each by namespace
// ("" cluster-wide), failing on any verb but a read.
func grants(t *testing.T, ns string, rules []rbacv1.PolicyRule, into map[string]string) {
	t.Helper()
	for _, r := range rules {
		for _, v := range r.Verbs {
			if v != "get" && v != "list" && v != "watch" {
				t.Fatalf("a role grants %q: %+v", v, r)
			}
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				if prev, dup := into[g+"/"+res]; dup {
					t.Fatalf("%s/%s granted in %q and in %q", g, res, prev, ns)
				}
				into[g+"/"+res] = ns
			}
		}
	}
}

// Every need is granted exactly where it is read: cluster-wide, or in its
// namespace alone; nothing is written.
func TestClusterRoleReadsEveryNeedAndWritesNothing(t *testing.T) {
	p := decodeRBAC(t, RBAC("handover-observer"))
	if len(p.clusterRoles) != 1 || len(p.clusterRoleBindings)+len(p.roleBindings) != 0 {
		t.Fatalf("want one ClusterRole and no binding without a subject: %+v", p)
	}
	granted := map[string]string{}
	grants(t, "", p.clusterRoles[0].Rules, granted)
	for _, r := range p.roles {
		grants(t, r.Namespace, r.Rules, granted)
	}
	for _, n := range Needs {
		if ns, ok := granted[n.Group+"/"+n.Resource]; !ok || ns != n.Namespace {
			t.Errorf("%s granted in %q (granted: %v), want in %q", n, ns, ok, n.Namespace)
		}
	}
	if urls := p.clusterRoles[0].Rules[len(p.clusterRoles[0].Rules)-1].NonResourceURLs; strings.Join(urls, ",") != strings.Join(NonResourceURLs, ",") {
		t.Errorf("non-resource URLs %v", urls)
	}
}

// The managers' leases are read in kube-system alone: the printed lease
// rule is a Role's there, never the ClusterRole's; so are the pods read to
// find the managers, and their logs, only got.
func TestPrintedLeaseRuleIsNamespaced(t *testing.T) {
	p := decodeRBAC(t, RBAC("handover-observer"))
	for _, r := range p.clusterRoles[0].Rules {
		if slices.Contains(r.Resources, "leases") || slices.Contains(r.Resources, "pods") || slices.Contains(r.Resources, "pods/log") {
			t.Fatalf("the ClusterRole grants leases, pods or their logs cluster-wide: %+v", r)
		}
	}
	want := []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}},
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{""}, Resources: []string{"pods"}},
		{Verbs: []string{"get", "list", "watch"}, APIGroups: []string{"coordination.k8s.io"}, Resources: []string{"leases"}}}
	if len(p.roles) != 1 || p.roles[0].Namespace != "kube-system" || !reflect.DeepEqual(p.roles[0].Rules, want) {
		t.Fatalf("want a Role in kube-system for pods, their logs and leases alone: %+v", p.roles)
	}
}

// Whether logs may be read is learnt from a log no pod has: refused
// without the permission, not found with it.
func TestPreflightGetsALogNoPodHas(t *testing.T) {
	for code, denied := range map[int]bool{http.StatusForbidden: true, http.StatusNotFound: false} {
		var path string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			path = r.Method + " " + r.URL.Path
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			_, _ = fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","code":%d,"reason":%q}`, code, map[int]string{403: "Forbidden", 404: "NotFound"}[code])
		}))
		c, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		err = getLog(context.Background(), c, "kube-system")
		srv.Close()
		if path != "GET /api/v1/namespaces/kube-system/pods/"+preflightPod+"/log" || apierrors.IsForbidden(err) != denied || (!denied && err != nil) {
			t.Errorf("answered %d: %s, err %v", code, path, err)
		}
	}
}

func TestRBACBindsEveryRoleToTheSubjectsGiven(t *testing.T) {
	sa, err := ParseSubject("serviceaccount:kube-system:handover-observer")
	if err != nil {
		t.Fatal(err)
	}
	user, err := ParseSubject("user:ci@example.com")
	if err != nil {
		t.Fatal(err)
	}
	p := decodeRBAC(t, RBAC("handover-observer", sa, user))
	want := []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "kube-system", Name: "handover-observer"},
		{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: "ci@example.com"}}
	if len(p.clusterRoleBindings) != 1 || len(p.roleBindings) != 1 {
		t.Fatalf("want a ClusterRoleBinding and a RoleBinding: %+v", p)
	}
	crb, rb := p.clusterRoleBindings[0], p.roleBindings[0]
	if crb.RoleRef != (rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "handover-observer"}) || !slices.Equal(crb.Subjects, want) {
		t.Errorf("ClusterRoleBinding %+v", crb)
	}
	if rb.Namespace != "kube-system" || rb.RoleRef != (rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "handover-observer"}) ||
		!slices.Equal(rb.Subjects, want) {
		t.Errorf("RoleBinding %+v", rb)
	}
	for _, bad := range []string{"", "user:", "robot:x", "serviceaccount:x", "serviceaccount::x", "serviceaccount:a:b:c"} {
		if _, err := ParseSubject(bad); err == nil {
			t.Errorf("ParseSubject(%q) accepted", bad)
		}
	}
}

func TestConfigSaysWhatIsWrong(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good")
	kc := `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: a, context: {cluster: c, user: u}}]
current-context: a
`
	if err := os.WriteFile(good, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, context, want string }{
		{"", "", "give --kubeconfig"},
		{filepath.Join(dir, "missing"), "", "no such file"},
		{empty, "", "has no contexts"},
		{good, "b", `no context "b"`},
	} {
		if _, err := Config(tc.path, tc.context); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Config(%q, %q) = %v, want %q", tc.path, tc.context, err, tc.want)
		}
	}
	rc, err := Config(good, "")
	if err != nil || rc.Host != "https://127.0.0.1:1" || rc.WrapTransport == nil {
		t.Fatalf("Config(good) = %+v, %v", rc, err)
	}
}
