package load

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/kind/pkg/log"
)

func TestProfiles(t *testing.T) {
	for _, n := range Names() {
		p, err := Lookup(n)
		if err != nil || p.Validate() != nil {
			t.Errorf("%s: %v %v", n, err, p.Validate())
		}
	}
	if _, err := Lookup("extreme"); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("unknown profile: %v", err)
	}
	bad := Profile{Name: "x", NodeJoins: 1, NodeTerminations: 2}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "only workers the load joined") {
		t.Errorf("more terminations than joins: %v", err)
	}
	if !Profiles["none"].None() || Profiles["moderate"].None() {
		t.Error("None()")
	}
}

// Churn keeps two churn Services at a time: each tick creates one, updates
// the one before and deletes the one before that.
func TestServiceChurnAndAPILoad(t *testing.T) {
	c := fake.NewSimpleClientset()
	g := Start(context.Background(), Options{Client: c, Logger: log.NoopLogger{}}, Profile{Name: "t", ChurnEvery: 20 * time.Millisecond, APIQPS: 200})
	time.Sleep(150 * time.Millisecond)
	s := g.Stop()
	if s.ServicesCreated < 3 || s.ServicesUpdated < 2 || s.ServicesDeleted < 1 || s.APIRequests < 8 || s.Failed != 0 {
		t.Fatalf("summary %+v", s)
	}
	svcs, _ := c.CoreV1().Services(Namespace).List(context.Background(), metav1.ListOptions{})
	if len(svcs.Items) != 2 {
		t.Fatalf("%d churn Services left, want 2", len(svcs.Items))
	}
	got, _ := c.CoreV1().Services(Namespace).Get(context.Background(), churnName(s.ServicesCreated-2), metav1.GetOptions{})
	if got == nil || got.Annotations["handover.sh/generation"] == "" {
		t.Fatalf("the previous Service was not updated: %+v", got)
	}
	cms, _ := c.CoreV1().ConfigMaps(Namespace).List(context.Background(), metav1.ListOptions{})
	if len(cms.Items) == 0 {
		t.Fatal("API load wrote nothing")
	}
	if !strings.Contains(s.String(), "Services created") {
		t.Fatal(s.String())
	}
}

// A transient API failure (an etcd member leaving times a request out) is
// retried, not a failed action.
func TestChurnRetriesTransientErrors(t *testing.T) {
	c := fake.NewSimpleClientset()
	failed := false
	c.PrependReactor("delete", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		if !failed {
			failed = true
			return true, nil, apierrors.NewTimeoutError("etcdserver: request timed out", 1)
		}
		return false, nil, nil
	})
	g := Start(context.Background(), Options{Client: c, Logger: log.NoopLogger{}}, Profile{Name: "t", ChurnEvery: 20 * time.Millisecond})
	time.Sleep(1500 * time.Millisecond)
	s := g.Stop()
	if !failed || s.Failed != 0 || s.APIErrors < 1 || s.ServicesDeleted < 1 || s.Err() != nil {
		t.Fatalf("summary %+v", s)
	}
}
