package observe

import (
	"context"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/timeline"
)

// managerPods records, per manager, the set of its pods in kube-system:
// once when the first list is in (an empty set too: that is the evidence
// that none exists), then whenever it changes.
type managerPods struct {
	ob     *Observer
	mu     sync.Mutex
	listed bool
	pods   map[string]map[string]string // manager: pod: node
	// changed is signalled (without blocking) whenever a manager's pod is
	// added, changes or goes, once the first list is in.
	changed chan struct{}
	// logs follow the pods' logs (Options.ManagerLogs); nil: not.
	logs *logFollowers
}

func (ob *Observer) watchManagerPods(ctx context.Context, inf cache.SharedIndexInformer) (cache.ResourceEventHandlerRegistration, *managerPods) {
	mp := &managerPods{ob: ob, pods: map[string]map[string]string{}, changed: make(chan struct{}, 1)}
	if ob.o.ManagerLogs {
		mp.logs = ob.newLogFollowers(ctx)
	}
	for _, m := range managers.Names() {
		mp.pods[m] = map[string]string{}
	}
	reg, _ := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { mp.set(obj, true) },
		UpdateFunc: func(_, obj any) { mp.set(obj, true) },
		DeleteFunc: func(obj any) { mp.set(obj, false) },
	})
	return reg, mp
}

// set records a pod's presence (or its deletion) under its manager.
func (mp *managerPods) set(obj any, present bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	m, c := ManagerContainer(p)
	if c == nil {
		return
	}
	if mp.logs != nil {
		mp.logs.pod(p, m, c.Name, present)
	}
	mp.mu.Lock()
	defer mp.mu.Unlock()
	if mp.listed {
		mp.signal() // an address or a flag may have changed: find again
	}
	node, had := mp.pods[m][p.Name]
	switch {
	case present && (!had || node != p.Spec.NodeName):
		mp.pods[m][p.Name] = p.Spec.NodeName
	case !present && had:
		delete(mp.pods[m], p.Name)
	default:
		return
	}
	if mp.listed {
		mp.emit(m)
	}
}

func (mp *managerPods) signal() {
	select {
	case mp.changed <- struct{}{}:
	default:
	}
}

// listedAll records every manager's set as the first list found it.
func (mp *managerPods) listedAll() {
	mp.mu.Lock()
	defer mp.mu.Unlock()
	mp.listed = true
	for _, m := range managers.Names() {
		mp.emit(m)
	}
}

// emit writes manager m's set, when they are recorded (ManagerPods);
// callers hold mu.
func (mp *managerPods) emit(m string) {
	if !mp.ob.o.ManagerPods {
		return
	}
	var pods []string
	for pod, node := range mp.pods[m] {
		pods = append(pods, node+"/"+pod)
	}
	slices.Sort(pods)
	mp.ob.emit(timeline.Event{Source: "pods", Kind: timeline.ManagerPods, Manager: m, Attrs: map[string]string{"pods": strings.Join(pods, ",")}})
}
