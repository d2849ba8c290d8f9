package load

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/verify/timeline"
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

// A Service's deletion goes on the timeline at the moment it was asked for,
// not when it returned (nor when a watch delivers it): its load balancer's
// probes stop counting from then on.
func TestChurnRecordsWhenDeletionWasAsked(t *testing.T) {
	c := fake.NewSimpleClientset()
	var mu sync.Mutex
	reached := map[string]time.Time{}
	c.PrependReactor("delete", "services", func(a k8stesting.Action) (bool, runtime.Object, error) {
		mu.Lock()
		reached[Namespace+"/"+a.(k8stesting.DeleteAction).GetName()] = time.Now()
		mu.Unlock()
		time.Sleep(30 * time.Millisecond) // a slow API server
		return false, nil, nil
	})
	path := filepath.Join(t.TempDir(), "timeline.jsonl")
	tl, err := timeline.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	g := Start(context.Background(), Options{Client: c, Timeline: tl, Logger: log.NoopLogger{}}, Profile{Name: "t", ChurnEvery: 20 * time.Millisecond})
	time.Sleep(200 * time.Millisecond)
	s := g.Stop()
	_ = tl.Close()
	evs, err := timeline.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recorded := 0
	for _, e := range evs {
		if e.Kind != timeline.ServiceDeleted {
			continue
		}
		recorded++
		mu.Lock()
		at, ok := reached[e.Attrs["service"]]
		mu.Unlock()
		if !ok || e.Time.After(at) {
			t.Errorf("%s recorded at %s, its deletion reached the API at %s", e.Attrs["service"], e.Time, at)
		}
	}
	if recorded == 0 || recorded != s.ServicesDeleted {
		t.Fatalf("%d deletions recorded, %d made", recorded, s.ServicesDeleted)
	}
}
