package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/internal/testenv"
	"github.com/handover-sh/handover/timeline"
)

const routeErr = "Couldn't reconcile node routes: error listing routes: found multiple matching AWS route tables for AWS cluster: rehearsal"

// klogAt is a klog line of severity sev as the API streams it with
// timestamps: the runtime's time, then klog's header.
func klogAt(at time.Time, sev, source, msg string) string {
	return at.Format(time.RFC3339Nano) + " " + sev + at.Format("0102 15:04:05.000000") + "       1 " + source + "] " + msg
}

func TestParseKlog(t *testing.T) {
	l, ok := parseKlog("E0101 10:22:03.123456       1 route_controller.go:119] "+routeErr, t0)
	if !ok || l.severity != 'E' || l.source != "route_controller.go:119" || l.message != routeErr || !l.ok ||
		!l.at.Equal(time.Date(2026, 1, 1, 10, 22, 3, 123456000, time.UTC)) {
		t.Fatalf("parseKlog = %+v, %v", l, ok)
	}
	// klog writes no year: a line of 31 December read at the turn of the
	// year is last year's.
	if l, _ := parseKlog("E1231 23:59:59.000000 1234567 x.go:1] m", t0); l.at.Year() != 2025 {
		t.Fatalf("31 December read on 1 January 2026 dated %s", l.at)
	}
	if l, _ := parseKlog("I0101 10:22:03.123456       1 controller.go:5] started", t0); l.severity != 'I' {
		t.Fatalf("an info line read as %q", l.severity)
	}
	// A header whose date cannot be: the line is read, the time is not.
	if l, ok := parseKlog("E1332 10:22:03.123456       1 x.go:1] m", t0); !ok || l.ok {
		t.Fatalf("an impossible date: %+v, %v", l, ok)
	}
	for _, none := range []string{`{"ts":1732789323123.4,"caller":"route/route_controller.go:119","msg":"x","v":0}`, "\tgoroutine 1 [running]:", ""} {
		if _, ok := parseKlog(none, t0); ok {
			t.Errorf("%q read as a klog line", none)
		}
	}
}

// A line longer than the limit is skipped, not fatal; a last line without
// its end (a stream cut mid-line) is not given.
func TestEachLineSkipsOverlongLines(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nafter\r\nlast"
	var got []string
	if err := eachLine(strings.NewReader(in), 32, func(l string) { got = append(got, l) }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "short|after" {
		t.Fatalf("lines %q", got)
	}
}

// fakeLogs hands out streams in turn, recording where each was opened
// from; past the last, a stream stays open until its context ends.
type fakeLogs struct {
	mu      sync.Mutex
	streams []string
	since   []time.Time
	opened  chan struct{}
}

func (f *fakeLogs) open(ctx context.Context, pod, container string, since time.Time) (io.ReadCloser, error) {
	if pod != "ccm-x" || container != "ccm" {
		return nil, fmt.Errorf("opened %s/%s", pod, container)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	defer func() { f.opened <- struct{}{} }()
	f.since = append(f.since, since)
	if len(f.since) <= len(f.streams) {
		return io.NopCloser(strings.NewReader(f.streams[len(f.since)-1])), nil
	}
	r, w := io.Pipe()
	go func() { <-ctx.Done(); w.CloseWithError(ctx.Err()) }()
	return r, nil
}

// A manager pod's errors are written once, then at most every 30 s with
// the lines folded in between; a stream that ends is reopened where it
// was read to (the same second's lines not read twice); the follower stops
// when the pod goes.
func TestManagerErrorsFoldedAndResumed(t *testing.T) {
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	resumeAt := at(40.5)
	first := strings.Join([]string{
		klogAt(at(1), "I", "controllermanager.go:10", "Starting"),
		klogAt(at(2), "E", "route_controller.go:119", routeErr),
		klogAt(at(12), "E", "route_controller.go:119", routeErr), // folded
		klogAt(at(22), "E", "route_controller.go:119", routeErr), // folded
		resumeAt.Format(time.RFC3339Nano) + " E" + strings.Repeat("x", maxLogLine),
		klogAt(at(32), "E", "route_controller.go:119", routeErr), // 30 s on: written, 2 folded
		klogAt(resumeAt, "E", "controller.go:300", "error syncing 'default/web': failed"),
		klogAt(resumeAt, "W", "controller.go:301", "retrying"),
	}, "\n") + "\n"
	second := strings.Join([]string{
		// From the same second again: the two lines read are dropped, a
		// third of that time is new.
		klogAt(resumeAt, "E", "controller.go:300", "error syncing 'default/web': failed"),
		klogAt(resumeAt, "W", "controller.go:301", "retrying"),
		klogAt(resumeAt, "E", "controller.go:302", "third at the same time"),
		klogAt(at(41), "E", "route_controller.go:119", routeErr), // folded
	}, "\n") + "\n"
	logs := &fakeLogs{streams: []string{first, second}, opened: make(chan struct{}, 8)}
	var buf testenv.LockedBuffer
	ob := &Observer{o: Options{Timeline: timeline.NewWriter(&buf), ManagerLogs: true}, started: t0}
	mp := &managerPods{ob: ob, pods: map[string]map[string]string{}, logs: ob.newLogFollowers(context.Background())}
	for _, m := range managers.Names() {
		mp.pods[m] = map[string]string{}
	}
	mp.logs.open, mp.logs.retry = logs.open, backoff{min: time.Millisecond, max: 4 * time.Millisecond}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "ccm-x", Namespace: "kube-system"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "sidecar", Command: []string{"/bin/proxy"}}, {Name: "ccm", Command: []string{"/bin/aws-cloud-controller-manager"}}}}}
	mp.set(pod, true) // not on a node yet: not followed
	scheduled := pod.DeepCopy()
	scheduled.Spec.NodeName = "cp-1"
	mp.set(scheduled, true)
	mp.set(scheduled, true) // an update: still one follower
	for range 3 {
		select {
		case <-logs.opened:
		case <-time.After(10 * time.Second):
			t.Fatal("the log was not opened three times")
		}
	}
	mp.set(cache.DeletedFinalStateUnknown{Key: "kube-system/ccm-x", Obj: scheduled}, false)
	stopped := make(chan struct{})
	go func() { ob.wg.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the follower went on after its pod went")
	}
	if want := []time.Time{t0.Add(-clockSkew), resumeAt, at(41)}; fmt.Sprint(logs.since) != fmt.Sprint(want) {
		t.Errorf("opened from %v, want %v", logs.since, want)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var e timeline.Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		if e.Kind != timeline.ManagerError || e.Manager != "cloud-controller-manager" || e.Instance != "cp-1" || e.Source != "logs" {
			t.Fatalf("event %+v", e)
		}
		got = append(got, fmt.Sprintf("%s %s %s repeats=%s", e.Time.Sub(t0), e.Attrs["source"], e.Attrs["message"], e.Attrs["repeats"]))
	}
	want := []string{
		"2s route_controller.go:119 " + routeErr + " repeats=",
		"32s route_controller.go:119 " + routeErr + " repeats=2",
		"40.5s controller.go:300 error syncing 'default/web': failed repeats=",
		"40.5s controller.go:302 third at the same time repeats=",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("written:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// With ManagerLogs alone, the managers' pods are watched for their logs,
// which are read through the API from the observation's start, following,
// with the runtime's timestamps; their sets are not recorded.
func TestManagerLogsReadThroughTheAPI(t *testing.T) {
	kcmPod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "kube-controller-manager-cp-1", Namespace: "kube-system", Labels: map[string]string{"component": "kube-controller-manager"}},
		Spec: corev1.PodSpec{NodeName: "cp-1", Containers: []corev1.Container{{Name: "kube-controller-manager", Command: []string{"kube-controller-manager"}}}}}
	client := fake.NewSimpleClientset(kcmPod)
	var buf testenv.LockedBuffer
	ob := Start(context.Background(), Options{Client: client, REST: &rest.Config{Host: "https://127.0.0.1:1"}, Timeline: timeline.NewWriter(&buf), ManagerLogs: true})
	var opts *corev1.PodLogOptions
	for deadline := time.Now().Add(10 * time.Second); opts == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, a := range client.Actions() {
			if g, ok := a.(k8stesting.GenericAction); ok && a.GetSubresource() == "log" && a.GetNamespace() == "kube-system" {
				opts, _ = g.GetValue().(*corev1.PodLogOptions)
			}
		}
	}
	ob.Stop()
	if opts == nil || opts.Container != "kube-controller-manager" || !opts.Follow || !opts.Timestamps || opts.SinceTime == nil ||
		opts.SinceTime.Time.After(ob.started) {
		t.Fatalf("log options %+v", opts)
	}
	if strings.Contains(buf.String(), timeline.ManagerPods) {
		t.Fatalf("manager.pods recorded without ManagerPods:\n%s", buf.String())
	}
}

// An error is timed by the runtime's timestamp, exact and in UTC, not by
// klog's header, which is the container's local time without a year.
func TestLoggedTakesTheRuntimesTime(t *testing.T) {
	pl := newPodLog()
	runtime := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	rest, at, fresh := pl.fresh(runtime.Format(time.RFC3339Nano) + " E0301 12:00:00.000000       1 node_controller.go:240] error syncing 'w1'")
	if !fresh {
		t.Fatal("a first line taken as read")
	}
	e, ok := pl.logged(logTarget{manager: "cloud-controller-manager", node: "cp-1"}, rest, at, runtime)
	if !ok || !e.Time.Equal(runtime) {
		t.Errorf("timed %v (%v), want the runtime's %v", e.Time, ok, runtime)
	}
}

// Only the API server's refusal of pods/log is the user's to mend: a
// kubelet refusing the API server while its node joins is not warned of.
func TestRefusedLogs(t *testing.T) {
	rbac := apierrors.NewForbidden(schema.GroupResource{Resource: "pods/log"}, "kcm-x", errors.New(`User "observer" cannot get resource "pods/log" in API group "" in the namespace "kube-system"`))
	kubelet := apierrors.NewForbidden(schema.GroupResource{Resource: "pods/log"}, "kcm-x", errors.New("Forbidden (user=kube-apiserver-kubelet-client, verb=get, resource=nodes, subresource=proxy)"))
	if !refusedLogs(rbac) || refusedLogs(kubelet) || refusedLogs(nil) || refusedLogs(errors.New("EOF")) {
		t.Errorf("refused: rbac %v, kubelet %v", refusedLogs(rbac), refusedLogs(kubelet))
	}
}
