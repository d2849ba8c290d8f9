package observe

import (
	"context"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/timeline"
)

// followCloud copies the cloud's record of the managers' calls
// onto the timeline, and records load balancers appearing and going.
func (ob *Observer) followCloud(ctx context.Context) {
	if ob.o.Cloud == nil {
		return
	}
	// From what the cloud holds now on, by position: a call recorded after
	// one the observers read is never skipped, however long before it began
	// (a call waiting on the cloud's lock). Asked from past the end, the
	// cloud answers with where the end is.
	next := math.MaxInt
	if _, n, err := ob.o.Cloud.CallsAfter(ctx, next); err == nil {
		next = n
	}
	lbs := map[string]CloudLB{}
	every(ctx, time.Second, func(ctx context.Context) {
		entries, n, err := ob.o.Cloud.CallsAfter(ctx, next)
		if err == nil {
			next = n
			for _, a := range entries {
				if a.Component == "kube-controller-manager" || a.Component == "cloud-controller-manager" {
					attrs := map[string]string{"operation": a.Operation, "resource": a.Resource, "status": strconv.Itoa(a.Status), "node": a.Node}
					if a.Fault != "" {
						attrs["fault"] = a.Fault // the knob behind a failure
					}
					ob.emit(timeline.Event{Time: a.Time, Source: "cloud-audit", Kind: timeline.CloudCall, Manager: a.Component,
						Controller: a.Controller, Attrs: attrs})
				}
			}
		}
		ob.diffLBs(ctx, lbs)
	})
}

func (ob *Observer) diffLBs(ctx context.Context, known map[string]CloudLB) {
	now, err := ob.o.Cloud.LoadBalancers(ctx)
	if err != nil {
		return
	}
	seen := map[string]bool{}
	for _, lb := range now {
		seen[lb.Name] = true
		before, ok := known[lb.Name]
		known[lb.Name] = lb
		attrs := map[string]string{"name": lb.Name, "service": lb.Service, "ip": lb.IP, "backends": backendsAttr(lb.Backends)}
		lb.Health.attrs(attrs)
		if len(lb.Dropped) > 0 {
			attrs[timeline.LBDropped] = backendsAttr(lb.Dropped)
		}
		if lb.Draining != "" {
			attrs[timeline.LBDraining] = lb.Draining
		}
		switch {
		case !ok:
			ob.emit(timeline.Event{Source: "cloud", Kind: timeline.LBCreated, Attrs: attrs})
		case !slices.Equal(before.Backends, lb.Backends) || !reflect.DeepEqual(before.Health, lb.Health) || !slices.Equal(before.Dropped, lb.Dropped) || before.Draining != lb.Draining:
			ob.emit(timeline.Event{Source: "cloud", Kind: timeline.LBChanged, Attrs: attrs})
		}
	}
	for name, lb := range known {
		if !seen[name] {
			delete(known, name)
			ob.emit(timeline.Event{Source: "cloud", Kind: timeline.LBDeleted, Attrs: map[string]string{"name": name, "service": lb.Service, "ip": lb.IP}})
		}
	}
}

// snapshot records the LoadBalancer Services and the cloud's load
// balancers at the end, for the leak check.
func (ob *Observer) snapshot(ctx context.Context) {
	attrs := map[string]string{}
	if svcs, err := ob.o.Client.CoreV1().Services("").List(ctx, metav1.ListOptions{}); err == nil {
		var names []string
		for _, s := range svcs.Items {
			if s.Spec.Type == corev1.ServiceTypeLoadBalancer {
				names = append(names, s.Namespace+"/"+s.Name)
			}
		}
		sort.Strings(names)
		attrs["services"] = strings.Join(names, ",")
	}
	if ob.o.Cloud != nil {
		if lbs, err := ob.o.Cloud.LoadBalancers(ctx); err == nil {
			var names []string
			for _, lb := range lbs {
				names = append(names, lb.Service+"="+lb.Name)
			}
			sort.Strings(names)
			attrs["loadBalancers"] = strings.Join(names, ",")
		}
		if routes, err := ob.o.Cloud.Routes(ctx); err == nil {
			attrs["routes"] = routesAttr(routes)
		}
	}
	ob.emit(timeline.Event{Source: "observer", Kind: timeline.Snapshot, Attrs: attrs})
}

// routesAttr is the route table as DESTINATION>TARGET, sorted and
// comma-separated; a blackhole route's target is "blackhole".
func routesAttr(routes []CloudRoute) string {
	out := make([]string, 0, len(routes))
	for _, r := range routes {
		target := r.Target
		if r.Blackhole {
			target = "blackhole"
		}
		out = append(out, r.Destination+">"+target)
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// maxBackendsListed bounds the "backends" attribute: a scale rehearsal's
// load balancers have hundreds, and every change would write them all
// again.
const maxBackendsListed = 16

func backendsAttr(nodes []string) string {
	if len(nodes) <= maxBackendsListed {
		return strings.Join(nodes, ",")
	}
	return strings.Join(nodes[:maxBackendsListed], ",") + ",… (" + strconv.Itoa(len(nodes)) + " in all)"
}
