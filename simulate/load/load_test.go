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
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/timeline"
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
	if !strings.Contains(s.String(), "of 200 QPS") || !strings.Contains(s.String(), "Service churn") {
		t.Fatal(s.String())
	}
}

// The load's client is its own, limited above the profile's rate; without
// a REST config it is the one given.
func TestClientFor(t *testing.T) {
	fc := fake.NewSimpleClientset()
	if c, err := clientFor(Options{Client: fc}, Profiles["heavy"]); err != nil || c != fc {
		t.Fatalf("no REST config: %v, %v", c, err)
	}
	c, err := clientFor(Options{Client: fc, REST: &rest.Config{Host: "https://127.0.0.1:6443"}}, Profiles["heavy"])
	if err != nil {
		t.Fatal(err)
	}
	if qps := c.CoreV1().RESTClient().GetRateLimiter().QPS(); qps < 60 {
		t.Fatalf("the load's client allows %g QPS, the profile asks 60", qps)
	}
}

// load.stop carries each target beside what was achieved.
func TestStopSaysWhatWasDelivered(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timeline.jsonl")
	tl, err := timeline.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	p := Profile{Name: "t", ChurnEvery: time.Second, APIQPS: 50}
	g := Start(context.Background(), Options{Client: fake.NewSimpleClientset(), Timeline: tl, Logger: log.NoopLogger{}}, p)
	time.Sleep(2200 * time.Millisecond)
	s := g.Stop()
	_ = tl.Close()
	if s.APIQPSTarget != 50 || s.APIQPS < 40 || s.APIQPS > 55 || s.ChurnTarget != 3 || s.ChurnDone() != 3 {
		t.Fatalf("delivered %+v, churn done %d", s.Delivered, s.ChurnDone())
	}
	evs, err := timeline.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stop := evs[len(evs)-1].Attrs
	for _, k := range []string{"apiQPSTarget", "apiQPSAchieved", "churnActionsTarget", "churnActionsDone", "nodeJoinsAsked", "nodeTerminationsAsked", "loadSeconds"} {
		if stop[k] == "" {
			t.Errorf("load.stop has no %s: %v", k, stop)
		}
	}
}

func TestChurnActions(t *testing.T) {
	for _, tc := range []struct {
		every, d time.Duration
		want     int
	}{
		{0, time.Minute, 0},
		{20 * time.Second, 19 * time.Second, 0},
		{20 * time.Second, 20 * time.Second, 1},
		{20 * time.Second, 40 * time.Second, 3},
		{20 * time.Second, 3 * time.Minute, 9 + 8 + 7},
	} {
		if got := churnActions(tc.every, tc.d); got != tc.want {
			t.Errorf("every %s over %s: %d, want %d", tc.every, tc.d, got, tc.want)
		}
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
