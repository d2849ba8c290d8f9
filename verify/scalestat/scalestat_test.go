package scalestat

import (
	"testing"
	"time"

	"github.com/handover-sh/handover/timeline"
)

var t0 = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func ev(s float64, kind string, mutate func(*timeline.Event)) timeline.Event {
	e := timeline.Event{Time: at(s), Kind: kind, Attrs: map[string]string{}}
	if mutate != nil {
		mutate(&e)
	}
	return e
}

func join(s float64, node, mode string) timeline.Event {
	return ev(s, timeline.ScaleJoin, func(e *timeline.Event) { e.Node, e.Attrs["mode"], e.Attrs["phase"] = node, mode, "prepare" })
}

func node(s float64, kind, name, providerID, taints string) timeline.Event {
	return ev(s, kind, func(e *timeline.Event) { e.Node, e.Attrs["providerID"], e.Attrs["taints"] = name, providerID, taints })
}

func call(s float64, manager, controller, op, resource, status string) timeline.Event {
	return ev(s, timeline.CloudCall, func(e *timeline.Event) {
		e.Manager, e.Controller = manager, controller
		e.Attrs["operation"], e.Attrs["resource"], e.Attrs["status"] = op, resource, status
	})
}

func health(s float64, manager, controllers string) timeline.Event {
	return ev(s, timeline.Health, func(e *timeline.Event) {
		e.Manager, e.Instance = manager, manager+"-0"
		e.Attrs["up"], e.Attrs["controllers"] = "true", controllers
	})
}

func lb(s float64, kind, name string) timeline.Event {
	return ev(s, kind, func(e *timeline.Event) { e.Attrs["name"] = name })
}

const kcm = "kube-controller-manager"

// A timeline with no simulated fleet has no scale figures.
func TestNoFleetNoFigures(t *testing.T) {
	if _, ok := Summarize([]timeline.Event{ev(0, timeline.ObserverStart, nil)}); ok {
		t.Fatal("figures from a timeline with no scale.start")
	}
}

func TestNodesWaitForTheirManager(t *testing.T) {
	evs := []timeline.Event{
		ev(0, timeline.ObserverStart, nil),
		ev(0, timeline.ScaleStart, func(e *timeline.Event) {
			e.Attrs["nodes"], e.Attrs["services"], e.Attrs["throttleQPS"] = "3", "1", "10"
		}),
		// in-tree: the kubelet registers with its ProviderID, 2 s after its machine came up
		join(1, "a", InTree), node(3, timeline.NodeAdded, "a", "kind://a", "kwok.x-k8s.io/node"),
		// external: registered tainted, initialised by the CCM 20 s later
		join(10, "b", External), node(11, timeline.NodeAdded, "b", "", "kwok.x-k8s.io/node,node.cloudprovider.kubernetes.io/uninitialized"),
		node(25, timeline.NodeChanged, "b", "kind://b", "kwok.x-k8s.io/node,node.cloudprovider.kubernetes.io/uninitialized"),
		node(30, timeline.NodeChanged, "b", "kind://b", "kwok.x-k8s.io/node"),
		// external, never initialised
		join(40, "c", External), node(41, timeline.NodeAdded, "c", "", "node.cloudprovider.kubernetes.io/uninitialized"),
		ev(130, timeline.ObserverStop, nil),
	}
	s, ok := Summarize(evs)
	if !ok || s.Nodes != 3 || s.Services != 1 || s.ThrottleQPS != "10" {
		t.Fatalf("summary %+v", s)
	}
	if len(s.Latencies) != 2 {
		t.Fatalf("latencies %+v: want in-tree and external", s.Latencies)
	}
	in, ext := s.Latencies[0], s.Latencies[1]
	if in.Mode != InTree || in.Nodes != 1 || in.Unfinished != 0 || in.ProviderID.Max != 2*time.Second || in.Initialised.Max != 2*time.Second {
		t.Errorf("in-tree %+v", in)
	}
	if ext.Mode != External || ext.Nodes != 2 || ext.Unfinished != 1 || ext.ProviderID.P50 != 15*time.Second || ext.Initialised.Max != 20*time.Second {
		t.Errorf("external %+v", ext)
	}
}

func TestCallsPerMinuteAndThrottles(t *testing.T) {
	evs := []timeline.Event{
		ev(0, timeline.ObserverStart, nil),
		ev(0, timeline.ScaleStart, nil),
		call(5, kcm, "node-route-controller", "CreateRoute", "r1", "200"),
		call(6, kcm, "node-route-controller", "CreateRoute", "r2", "429"),
		call(70, ccm, "cloud-node-controller", "GetInstance", "n1", "429"),
		call(75, ccm, "cloud-node-controller", "GetInstance", "n1", "200"),
		call(130, ccm, "cloud-node-controller", "GetInstance", "n2", "200"),
	}
	s, _ := Summarize(evs)
	if len(s.Calls) != 2 {
		t.Fatalf("calls %+v", s.Calls)
	}
	c, k := s.Calls[0], s.Calls[1]
	if c.Manager != ccm || c.Total != 3 || c.Throttled != 1 || len(c.PerMinute) != 3 || c.PerMinute[1] != 2 || c.Throttles[1] != 1 || c.PerMinute[2] != 1 {
		t.Errorf("CCM %+v", c)
	}
	if k.Manager != kcm || k.Total != 2 || k.Throttled != 1 || k.PerMinute[0] != 2 {
		t.Errorf("KCM %+v", k)
	}
}

// The hand-off is the CCM's first run of the service controller; each load
// balancer alive then is reconciled by the CCM's first successful call on it
// after that (the earliest, though the audit arrives out of order); one it
// never touched is outstanding.
func TestReconcileAfterTheHandOff(t *testing.T) {
	evs := []timeline.Event{
		ev(0, timeline.ObserverStart, nil),
		ev(0, timeline.ScaleStart, nil),
		lb(1, timeline.LBCreated, "lb1"), lb(1, timeline.LBCreated, "lb2"), lb(1, timeline.LBCreated, "lb3"), lb(2, timeline.LBCreated, "gone"),
		lb(3, timeline.LBDeleted, "gone"),
		health(5, kcm, serviceController), health(10, kcm, serviceController),
		health(20, ccm, serviceController), health(60, ccm, serviceController),
		call(15, kcm, serviceController, "UpdateLoadBalancer", "lb1", "200"),
		call(30, ccm, serviceController, "UpdateLoadBalancer", "lb2", "429"),
		call(50, ccm, serviceController, "UpdateLoadBalancer", "lb2", "200"),
		call(25, ccm, serviceController, "UpdateLoadBalancer", "lb1", "200"),
		call(40, ccm, serviceController, "UpdateLoadBalancer", "lb1", "200"),
		ev(70, timeline.ObserverStop, nil),
	}
	s, _ := Summarize(evs)
	r := s.Reconcile
	if !r.HandOff.Equal(at(20)) || r.LBs != 3 || r.Done != 2 || r.All != 30*time.Second || len(r.Outstanding) != 1 || r.Outstanding[0] != "lb3" {
		t.Fatalf("reconcile %+v", r)
	}
	// What is outstanding was not reconciled within the 50 s observed
	// after the hand-off: that is all the timeline can say.
	if r.Observed != 50*time.Second {
		t.Fatalf("observed %s after the hand-off, want 50s", r.Observed)
	}
}

// No hand-off observed: nothing measured, not a zero that reads as instant.
func TestNoHandOffNoReconcile(t *testing.T) {
	s, _ := Summarize([]timeline.Event{ev(0, timeline.ScaleStart, nil), lb(1, timeline.LBCreated, "lb1"), health(5, kcm, serviceController)})
	if !s.Reconcile.HandOff.IsZero() || s.Reconcile.LBs != 0 {
		t.Fatalf("reconcile %+v without a hand-off", s.Reconcile)
	}
}

// A new leader's first sweep can come before the health poller sees it run
// the controller: its first call is the hand-off. A read reconciles nothing.
func TestHandOffAtTheFirstCallAndReadsDoNotReconcile(t *testing.T) {
	evs := []timeline.Event{
		ev(0, timeline.ObserverStart, nil), ev(0, timeline.ScaleStart, nil),
		lb(1, timeline.LBCreated, "lb1"), lb(1, timeline.LBCreated, "lb2"),
		call(18, ccm, serviceController, "GetLoadBalancer", "lb2", "200"),
		call(19, ccm, serviceController, "UpdateLoadBalancer", "lb1", "200"),
		health(20, ccm, serviceController), health(30, ccm, serviceController),
		ev(40, timeline.ObserverStop, nil),
	}
	r := reconcile(evs)
	if !r.HandOff.Equal(at(18)) || r.Done != 1 || r.All != time.Second || len(r.Outstanding) != 1 || r.Outstanding[0] != "lb2" {
		t.Fatalf("%+v", r)
	}
}
