package observe

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/handover-sh/handover/timeline"
)

// watchKube records lease holder changes, node changes, and LoadBalancer
// Services' addresses and deletion, from informers (which re-list after a
// lost watch).
func (ob *Observer) watchKube(ctx context.Context) {
	f := informers.NewSharedInformerFactory(ob.o.Client, 10*time.Minute)
	// The managers' leases are in kube-system: an observer allowed only
	// there needs no more.
	lf := informers.NewSharedInformerFactoryWithOptions(ob.o.Client, 10*time.Minute, informers.WithNamespace("kube-system"))
	leases := lf.Coordination().V1().Leases().Informer()
	var podsReg cache.ResourceEventHandlerRegistration
	var pods *managerPods
	if ob.o.ManagerPods || ob.o.ManagerLogs {
		podsReg, pods = ob.watchManagerPods(ctx, lf.Core().V1().Pods().Informer())
	}
	nodes := f.Core().V1().Nodes().Informer()
	services := f.Core().V1().Services().Informer()
	holders := map[string]string{}
	onLease := func(obj any) {
		l, ok := obj.(*coordv1.Lease)
		if !ok || l.Namespace != "kube-system" || !ob.watchedLease(l.Name) {
			return
		}
		h := ""
		if l.Spec.HolderIdentity != nil {
			h = *l.Spec.HolderIdentity
		}
		if prev, seen := holders[l.Name]; seen && prev == h {
			return
		}
		holders[l.Name] = h
		ob.emit(timeline.Event{Source: "lease", Kind: timeline.Lease, Attrs: map[string]string{"lease": l.Name, "holder": h}})
	}
	lreg, _ := leases.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: onLease, UpdateFunc: func(_, n any) { onLease(n) }})
	nreg, _ := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { ob.nodeEvent(ctx, timeline.NodeAdded, obj) },
		UpdateFunc: func(old, n any) {
			if nodeState(old) != nodeState(n) {
				ob.nodeEvent(ctx, timeline.NodeChanged, n)
			}
			ob.managed("nodes", old, n)
		},
		DeleteFunc: func(obj any) { ob.nodeEvent(ctx, timeline.NodeDeleted, obj) },
	})
	// A Service is deleted when its deletion is asked for: the load
	// balancer goes from then on, while the finalizer keeps the object.
	deleting := map[string]bool{}
	onService := func(obj any, gone bool) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		s, ok := obj.(*corev1.Service)
		if !ok || s.Spec.Type != corev1.ServiceTypeLoadBalancer || (!gone && s.DeletionTimestamp == nil) {
			return
		}
		key := s.Namespace + "/" + s.Name
		if deleting[key] {
			if gone {
				delete(deleting, key)
			}
			return
		}
		deleting[key] = !gone
		ob.emit(timeline.Event{Source: "api", Kind: timeline.ServiceDeleted, Attrs: map[string]string{"service": key}})
	}
	ingress := map[string]string{}
	onStatus := func(obj any) {
		s, ok := obj.(*corev1.Service)
		if !ok || s.Spec.Type != corev1.ServiceTypeLoadBalancer {
			return
		}
		key, addrs := s.Namespace+"/"+s.Name, ingressOf(s)
		if prev, seen := ingress[key]; seen && prev == addrs {
			return
		}
		ingress[key] = addrs
		ob.emit(timeline.Event{Source: "api", Kind: timeline.ServiceIngress, Attrs: map[string]string{"service": key, "ingress": addrs}})
	}
	_, _ = services.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    onStatus,
		UpdateFunc: func(old, n any) { onService(n, false); onStatus(n); ob.managed("services", old, n) },
		DeleteFunc: func(obj any) {
			onService(obj, true)
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if s, ok := obj.(*corev1.Service); ok {
				delete(ingress, s.Namespace+"/"+s.Name)
			}
		},
	})
	if ob.o.ManagedFields {
		ob.watchEvents(f)
	}
	f.Start(ctx.Done())
	lf.Start(ctx.Done())
	// The initial lists are what "before" means to the node checks: say
	// when they are recorded.
	if lreg != nil && nreg != nil && cache.WaitForCacheSync(ctx.Done(), lreg.HasSynced, nreg.HasSynced) {
		close(ob.synced)
	}
	if ob.o.ManagerPods && podsReg != nil && cache.WaitForCacheSync(ctx.Done(), podsReg.HasSynced) {
		pods.listedAll()
		ob.wg.Add(1) // held by watchKube's own: Stop waits for both
		go func() {
			defer ob.wg.Done()
			ob.rediscover(ctx, pods.changed)
		}()
	}
	<-ctx.Done()
	f.Shutdown()
	lf.Shutdown()
}

// managed records the cloud controllers' writes read off an object's
// managedFields between two versions of it.
func (ob *Observer) managed(resource string, old, cur any) {
	if !ob.o.ManagedFields {
		return
	}
	o, ok1 := old.(metav1.Object)
	c, ok2 := cur.(metav1.Object)
	if !ok1 || !ok2 {
		return
	}
	for _, e := range managedWrites(resource, o, c) {
		ob.emit(e)
	}
}

func (ob *Observer) watchedLease(name string) bool {
	for _, l := range ob.o.Leases {
		if l == name {
			return true
		}
	}
	return false
}

func nodeState(obj any) string {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return ""
	}
	a := nodeAttrs(n)
	return a["providerID"] + "|" + a["taints"] + "|" + a["podCIDRs"] + "|" + a["addresses"] + "|" + a["zone"] + "|" + a["region"] + "|" + a["instanceType"]
}

// nodeAttrs is what the timeline records of a Node: what the cloud
// controllers own on it (the labels are k8s.io/api's well-known ones).
func nodeAttrs(n *corev1.Node) map[string]string {
	// By type, each type's in the Node's order: the first InternalIP is
	// the node's IP (what the API server dials, a pod's hostIP), while
	// the order between types differs from provider to provider
	// harmlessly.
	byType := slices.Clone(n.Status.Addresses)
	slices.SortStableFunc(byType, func(a, b corev1.NodeAddress) int { return strings.Compare(string(a.Type), string(b.Type)) })
	var addrs []string
	for _, a := range byType {
		addrs = append(addrs, string(a.Type)+"="+a.Address)
	}
	return map[string]string{"providerID": n.Spec.ProviderID, "taints": taints(n), "podCIDRs": strings.Join(n.Spec.PodCIDRs, ","),
		"addresses": strings.Join(addrs, ","), "zone": n.Labels[corev1.LabelTopologyZone], "region": n.Labels[corev1.LabelTopologyRegion], "instanceType": n.Labels[corev1.LabelInstanceTypeStable]}
}

// ingressOf is a Service's load-balancer addresses, in the order given.
func ingressOf(s *corev1.Service) string {
	var addrs []string
	for _, in := range s.Status.LoadBalancer.Ingress {
		if in.IP != "" {
			addrs = append(addrs, in.IP)
		} else if in.Hostname != "" {
			addrs = append(addrs, in.Hostname)
		}
	}
	return strings.Join(addrs, ",")
}

func taints(n *corev1.Node) string {
	var ks []string
	for _, t := range n.Spec.Taints {
		ks = append(ks, t.Key)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

func (ob *Observer) nodeEvent(ctx context.Context, kind string, obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	n, ok := obj.(*corev1.Node)
	if !ok {
		return
	}
	e := timeline.Event{Source: "nodes", Kind: kind, Node: n.Name, Attrs: nodeAttrs(n)}
	if kind == timeline.NodeDeleted && ob.o.Cloud != nil {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if exists, err := ob.o.Cloud.HasInstance(cctx, n.Name); err == nil && exists {
			e.Attrs["instance"] = "exists"
		} else {
			e.Attrs["instance"] = "gone"
		}
	}
	ob.emit(e)
}
