package observe

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/handover-sh/handover/timeline"
)

// eventComponents maps the component each cloud controller's event
// recorder names (the same in both managers, v1.26–v1.31) to the
// controller.
var eventComponents = map[string]string{
	"service-controller":              "service-lb-controller",
	"route_controller":                "node-route-controller",
	"cloud-node-controller":           "cloud-node-controller",
	"cloud-node-lifecycle-controller": "cloud-node-lifecycle-controller",
	"cidrAllocator":                   "node-ipam-controller",
}

// watchEvents records the Events the cloud controllers report, each
// attributed to the manager that wrote it: the component says which
// controller, the Event's managedFields which manager (both managers'
// controllers name themselves alike).
func (ob *Observer) watchEvents(f informers.SharedInformerFactory) {
	inf := f.Core().V1().Events().Informer()
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		// The informer's first list brings every Event already there:
		// only those written since the observation began are evidence.
		AddFunc:    func(obj any) { ob.emitEvent(nil, obj) },
		UpdateFunc: func(old, cur any) { ob.emitEvent(old, cur) },
	})
}

// clockSkew: the cluster's clock stamps managedFields, this process's the
// observation's start; an Event written this much before the start still
// counts, so a cluster clock behind ours loses none of the window.
const clockSkew = 30 * time.Second

func (ob *Observer) emitEvent(old, cur any) {
	e, ok := cur.(*corev1.Event)
	if !ok {
		return
	}
	var prev *corev1.Event
	if old != nil {
		prev, _ = old.(*corev1.Event)
	}
	if ev, ok := reportedEvent(prev, e); ok && !ev.Time.Before(ob.started.Add(-clockSkew)) {
		ob.emit(ev)
	}
}

// reportedEvent is a cloud controller's Event as a managed write, at the
// time its manager last wrote it (created it, or counted it again).
func reportedEvent(old, e *corev1.Event) (timeline.Event, bool) {
	component := e.Source.Component
	if component == "" {
		component = e.ReportingController
	}
	controller, ok := eventComponents[component]
	if !ok {
		return timeline.Event{}, false
	}
	var before []metav1.ManagedFieldsEntry
	if old != nil {
		before = old.ManagedFields
	}
	ms := moved(before, e.ManagedFields, "")
	if len(ms) != 1 {
		return timeline.Event{}, false
	}
	m := ms[0]
	name := e.InvolvedObject.Name
	if e.InvolvedObject.Namespace != "" {
		name = e.InvolvedObject.Namespace + "/" + name
	}
	return timeline.Event{Time: m.Time.UTC(), Source: "events", Kind: timeline.ManagedWrite, Manager: m.Manager, Controller: controller,
		Attrs: map[string]string{"resource": "events", "name": name, "operation": string(m.Operation), "reason": e.Reason, "message": clip(e.Message)}}, true
}
