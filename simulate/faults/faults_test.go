package faults

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/timeline"
)

func TestValidate(t *testing.T) {
	steps := []string{"a", "b"}
	for _, tc := range []struct {
		s    Spec
		want string
	}{
		{Spec{Name: "meteor"}, "use one of"},
		{Spec{Name: LeaderKill, Step: "c"}, `step "c" is not a step`},
		{Spec{Name: CPNodeStop}, "needs a duration"},
		{Spec{Name: LeaderKill, Delay: -time.Second}, "must not be negative"},
		{Spec{Name: LeaderKill, Step: "b"}, ""},
		{Spec{Name: LeaderKill, Step: AfterProcedure}, ""},
		{Spec{Name: None}, ""},
	} {
		err := tc.s.Validate(steps)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: got %v, want %q", tc.s, err, tc.want)
		}
	}
	for _, n := range Names() {
		s, err := Lookup(n)
		if err != nil || s.Validate(nil) != nil {
			t.Errorf("default %s does not validate: %v %v", n, err, s.Validate(nil))
		}
	}
}

// knobsCloud is a cloud that records the knobs it is set to.
type knobsCloud struct {
	mu   sync.Mutex
	puts []api.Faults
}

func (k *knobsCloud) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPut && r.URL.Path == "/v1/faults" {
		var f api.Faults
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &f)
		k.mu.Lock()
		k.puts = append(k.puts, f)
		k.mu.Unlock()
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("{}"))
}

func (k *knobsCloud) set() []api.Faults {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]api.Faults(nil), k.puts...)
}

// runCloudFault arms a cloud fault on step "switch", starts another step
// and then that one, and returns the knobs it set and its timeline once it
// has ended.
func runCloudFault(t *testing.T, name string) ([]api.Faults, string) {
	t.Helper()
	k := &knobsCloud{}
	cloud := httptest.NewServer(k)
	defer cloud.Close()
	var buf testenv.LockedBuffer
	tl := timeline.NewWriter(&buf)
	in := Start(context.Background(), Options{Cloud: api.NewClient(cloud.URL, "test"), Timeline: tl, Logger: log.NoopLogger{}},
		Spec{Name: name, Step: "switch", Duration: 50 * time.Millisecond})
	_ = tl.Write(timeline.Event{Kind: timeline.StepStart, Step: "other"})
	time.Sleep(20 * time.Millisecond)
	if early := len(k.set()); early != 0 {
		t.Fatal("fired before its step")
	}
	_ = tl.Write(timeline.Event{Kind: timeline.StepStart, Step: "switch"})
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) && !strings.Contains(buf.String(), timeline.FaultEnd) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := in.Stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), timeline.FaultStart) {
		t.Fatal("fault not announced on the timeline")
	}
	return k.set(), buf.String()
}

// A cloud fault armed on a step fires when the runner starts that step,
// is announced, and is undone after its duration.
func TestCloudThrottleFiresAtItsStepAndIsUndone(t *testing.T) {
	puts, _ := runCloudFault(t, CloudThrottle)
	if len(puts) != 2 || puts[0].ThrottleQPS == 0 || puts[1].ThrottleQPS != 0 || len(puts[1].ErrorRate) != 0 {
		t.Fatalf("cloud faults set %+v, want throttle then cleared", puts)
	}
}

// cloud-lag sets the cloud's lag knob alone, on the cloud as its target,
// and clears it after its duration.
func TestCloudLagSetsTheLagAndClearsIt(t *testing.T) {
	puts, events := runCloudFault(t, CloudLag)
	if len(puts) != 2 || puts[0].Lag.Duration != CloudLagBy || puts[0].ThrottleQPS != 0 || len(puts[0].ErrorRate) != 0 || puts[1].Lag.Duration != 0 {
		t.Fatalf("cloud faults set %+v, want a lag of %s then cleared", puts, CloudLagBy)
	}
	if !strings.Contains(events, `"target":"`+timeline.FaultTargetCloud+`"`) {
		t.Fatalf("the fault's target is not the cloud: %s", events)
	}
	if CloudLagBy > cloudserver.MaxLag {
		t.Fatalf("CloudLagBy %s is over the cloud's bound %s", CloudLagBy, cloudserver.MaxLag)
	}
	if s, _ := Lookup(CloudLag); s.Duration != 3*time.Minute || !s.Cloud() {
		t.Fatalf("cloud-lag's default: %+v", s)
	}
	if err := (Spec{Name: CloudLag}).Validate(nil); err == nil || !strings.Contains(err.Error(), "needs a duration") {
		t.Fatalf("cloud-lag without a duration: %v", err)
	}
}

// A fault scheduled after the procedure waits for it, whatever steps
// start, and ProcedureEnded returns once it has fired.
func TestAFaultAfterTheProcedureWaitsForItsEnd(t *testing.T) {
	var mu sync.Mutex
	puts := 0
	cloud := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		puts++
		mu.Unlock()
		_, _ = w.Write([]byte("{}"))
	}))
	defer cloud.Close()
	var buf testenv.LockedBuffer
	tl := timeline.NewWriter(&buf)
	in := Start(context.Background(), Options{Cloud: api.NewClient(cloud.URL, "test"), Timeline: tl, Logger: log.NoopLogger{}},
		Spec{Name: CloudOutage, Step: AfterProcedure, Duration: 10 * time.Millisecond})
	in.aftermath = 0
	_ = tl.Write(timeline.Event{Kind: timeline.StepStart, Step: AfterProcedure})
	_ = tl.Write(timeline.Event{Kind: timeline.RunEnd})
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	early := puts
	mu.Unlock()
	if early != 0 {
		t.Fatal("fired before the procedure ended")
	}
	in.ProcedureEnded(context.Background())
	if !strings.Contains(buf.String(), timeline.FaultEnd) {
		t.Fatal("ProcedureEnded returned before the fault was over")
	}
	if err := in.Stop(); err != nil {
		t.Fatal(err)
	}
}

func TestAFaultThatNeverFiredIsAnError(t *testing.T) {
	tl := timeline.NewWriter(io.Discard)
	in := Start(context.Background(), Options{Timeline: tl, Logger: log.NoopLogger{}}, Spec{Name: LeaderKill, Step: "never"})
	if err := in.Stop(); err == nil || !strings.Contains(err.Error(), "never fired") {
		t.Fatalf("got %v", err)
	}
	if err := Start(context.Background(), Options{Timeline: tl}, Spec{Name: None}).Stop(); err != nil {
		t.Fatalf("none: %v", err)
	}
}

func TestServiceDeleteAndNodeReregister(t *testing.T) {
	c := fake.NewSimpleClientset(
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "web"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "plain"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cp", Labels: map[string]string{"node-role.kubernetes.io/control-plane": ""}}, Spec: corev1.NodeSpec{ProviderID: "kind://cp"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "w1", Labels: map[string]string{"x": "y"}}, Spec: corev1.NodeSpec{ProviderID: "kind://w1", PodCIDR: "10.244.1.0/24"}},
	)
	in := &Injector{o: Options{Client: c, Timeline: timeline.NewWriter(io.Discard), Logger: log.NoopLogger{}}, s: Spec{Name: ServiceDelete}}
	ctx := context.Background()
	if target, err := in.serviceDelete(ctx); err != nil || target != "a/web" {
		t.Fatalf("deleted %q: %v", target, err)
	}
	if _, err := c.CoreV1().Services("a").Get(ctx, "web", metav1.GetOptions{}); err == nil {
		t.Fatal("a/web still there")
	}
	if target, err := in.nodeReregister(ctx); err != nil || target != "w1" {
		t.Fatalf("re-registered %q: %v", target, err)
	}
	n, err := c.CoreV1().Nodes().Get(ctx, "w1", metav1.GetOptions{})
	if err != nil || n.Spec.ProviderID != "other://w1" || n.Labels["x"] != "y" || n.Spec.PodCIDR != "10.244.1.0/24" {
		t.Fatalf("node after: %+v %v", n, err)
	}
}

// ccm-other-region must name a region the simulated cloud has no instance
// in, or the fault scopes the CCM to everything.
func TestOtherRegionIsNotTheClouds(t *testing.T) {
	if otherRegion == cloudserver.Region {
		t.Fatalf("otherRegion %q is the simulated cloud's own region", otherRegion)
	}
}
