package readonly

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
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

func TestClusterRoleReadsEveryNeedAndWritesNothing(t *testing.T) {
	var role rbacv1.ClusterRole
	if err := yaml.UnmarshalStrict([]byte(ClusterRole("handover-observer")), &role); err != nil {
		t.Fatal(err)
	}
	granted := map[string]bool{}
	for _, r := range role.Rules {
		for _, v := range r.Verbs {
			if v != "get" && v != "list" && v != "watch" {
				t.Fatalf("the role grants %q: %+v", v, r)
			}
		}
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				granted[g+"/"+res] = true
			}
		}
	}
	for _, n := range Needs {
		if !granted[n.Group+"/"+n.Resource] {
			t.Errorf("the role does not grant %s", n)
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
