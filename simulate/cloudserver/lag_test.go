package cloudserver

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// names are the instances a caller lists.
func names(t *testing.T, c *api.Client) []string {
	t.Helper()
	all, err := c.Instances(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, in := range all {
		out = append(out, in.Name)
	}
	return out
}

func status(err error) int {
	var se *api.StatusError
	if errors.As(err, &se) {
		return se.Code
	}
	return 0
}

// With the lag knob a manager neither lists nor finds an instance
// launched less than the lag ago, and still lists and finds one
// terminated less than it ago, as it was; the cloud's own callers see the
// instances as they are; the audit names the knob.
func TestLagHidesNewInstancesAndKeepsTerminatedOnes(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	kcm, own := r.client("kube-controller-manager"), r.client("handover-imds")
	names(t, own) // dates the instances there are: these fakes have no launch times
	r.now = r.now.Add(time.Minute)
	if err := r.admin().SetFaults(ctx, api.Faults{Lag: api.Duration{Duration: 30 * time.Second}}); err != nil {
		t.Fatal(err)
	}
	fresh := api.Instance{Name: "c-worker3", ProviderID: "kind://docker/c/c-worker3", Region: "region-1", Zone: "zone-c",
		State: api.StateRunning, Addresses: []api.Address{{Type: "InternalIP", Address: "172.18.0.6"}}}
	r.fakes.mu.Lock()
	r.fakes.instances = append(r.fakes.instances, fresh)
	r.fakes.mu.Unlock()
	if got := names(t, kcm); slices.Contains(got, "c-worker3") {
		t.Fatalf("the manager lists %v, a new instance among them", got)
	}
	if got := names(t, own); !slices.Contains(got, "c-worker3") {
		t.Fatalf("the metadata service lists %v, want the new instance", got)
	}
	if _, err := kcm.Instance(ctx, "", "c-worker3"); status(err) != http.StatusNotFound {
		t.Fatalf("the manager's look-up of the new instance: %v, want 404", err)
	}
	if _, err := kcm.InstanceByProviderID(ctx, "", fresh.ProviderID); status(err) != http.StatusNotFound {
		t.Fatalf("by ProviderID: %v, want 404", err)
	}
	rt := api.Route{Name: "c-worker3", DestinationCIDR: "10.244.3.0/24", TargetInstance: "c-worker3"}
	if err := kcm.CreateRoute(ctx, "route", rt); status(err) != http.StatusNotFound {
		t.Fatalf("a route to the new instance: %v, want 404", err)
	}

	if err := r.admin().TerminateInstance(ctx, "c-worker"); err != nil {
		t.Fatal(err)
	}
	if got, err := kcm.Instance(ctx, "", "c-worker"); err != nil || got.State != api.StateRunning {
		t.Fatalf("the manager's look-up of the just terminated instance: %+v %v, want it running", got, err)
	}
	if got := names(t, kcm); !slices.Contains(got, "c-worker") {
		t.Fatalf("the manager lists %v, want the just terminated instance", got)
	}
	if _, err := own.Instance(ctx, "", "c-worker"); status(err) != http.StatusNotFound {
		t.Fatalf("the cloud's own look-up of the terminated instance: %v, want 404", err)
	}

	r.now = r.now.Add(31 * time.Second)
	if got := names(t, kcm); !slices.Equal(got, []string{"c-worker2", "c-worker3"}) {
		t.Fatalf("after the lag the manager lists %v", got)
	}
	if _, err := kcm.Instance(ctx, "", "c-worker"); status(err) != http.StatusNotFound {
		t.Fatalf("the terminated instance after the lag: %v, want 404", err)
	}
	lagged := 0
	for _, e := range r.server.audit.since(time.Time{}) {
		if e.Fault == "lag" && e.Status == http.StatusNotFound && e.Component == "kube-controller-manager" {
			lagged++
		}
	}
	if lagged != 3 {
		t.Fatalf("audited lagging answers: %d, want 3", lagged)
	}
}

// Without the knob an instance is there, and gone, at once.
func TestNoLagIsImmediate(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	kcm := r.client("kube-controller-manager")
	r.fakes.mu.Lock()
	r.fakes.instances = append(r.fakes.instances, api.Instance{Name: "c-worker3", Region: "region-1", Zone: "zone-c", State: api.StateRunning})
	r.fakes.mu.Unlock()
	if err := r.admin().TerminateInstance(ctx, "c-worker"); err != nil {
		t.Fatal(err)
	}
	if got := names(t, kcm); !slices.Equal(got, []string{"c-worker2", "c-worker3"}) {
		t.Fatalf("the manager lists %v", got)
	}
}

// launchedFakes date their instances as a backend that knows its
// machines' creation does.
type launchedFakes struct {
	*fakeBackends
	at time.Time
}

func (l launchedFakes) ListLaunched(ctx context.Context) ([]api.Instance, map[string]time.Time, error) {
	all, err := l.List(ctx)
	times := map[string]time.Time{}
	for _, in := range all {
		times[in.Name] = l.at
	}
	return all, times, err
}

// An instance is dated from its launch, not from the cloud's first
// listing of it: listed late, it lags no longer than the knob says.
func TestLagCountsFromTheLaunch(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	r.server.opts.Backends.Instances = launchedFakes{r.fakes, r.now.Add(-20 * time.Second)}
	if err := r.admin().SetFaults(ctx, api.Faults{Lag: api.Duration{Duration: 30 * time.Second}}); err != nil {
		t.Fatal(err)
	}
	kcm := r.client("kube-controller-manager")
	if got := names(t, kcm); len(got) != 0 {
		t.Fatalf("launched 20 s ago, under a 30 s lag: %v listed", got)
	}
	r.now = r.now.Add(11 * time.Second)
	if got := names(t, kcm); len(got) != 2 {
		t.Fatalf("launched 31 s ago: %v listed, want both", got)
	}
}

// The terminations the knob answers from survive a restart, and the
// knob is bounded.
func TestLagSurvivesRestartAndIsBounded(t *testing.T) {
	dir := t.TempDir()
	r := newRig(t, dir)
	ctx := context.Background()
	if err := r.admin().SetFaults(ctx, api.Faults{Lag: api.Duration{Duration: time.Minute}}); err != nil {
		t.Fatal(err)
	}
	if err := r.admin().TerminateInstance(ctx, "c-worker"); err != nil {
		t.Fatal(err)
	}
	r.server.Close()
	again := newRig(t, dir)
	again.server.opts.Backends.Instances = launchedFakes{again.fakes, again.now.Add(-time.Hour)}
	if got := names(t, again.client("kube-controller-manager")); !slices.Contains(got, "c-worker") {
		t.Fatalf("after a restart the manager lists %v, want the just terminated instance", got)
	}
	for _, d := range []time.Duration{-time.Second, MaxLag + time.Second} {
		if err := again.admin().SetFaults(ctx, api.Faults{Lag: api.Duration{Duration: d}}); status(err) != http.StatusBadRequest {
			t.Errorf("lag %s: %v, want 400", d, err)
		}
	}
}
