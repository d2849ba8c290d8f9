package observe

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/timeline"
)

// A managed write is read off an object's managedFields: the API server
// records, for each field manager (a client's user agent up to its first
// "/", so "kube-controller-manager" or "cloud-controller-manager") and
// subresource, when it last changed the object. Between two versions of an
// object, what changed says which controller wrote, and the entry whose
// time moved says which manager: evidence from the API alone.

// facet is one thing a cloud controller changes, and how to see it change.
type facet struct {
	resource    string // "nodes" or "services"
	subresource string // the managedFields entry's: "" or "status"
	controller  string
	// onlyCCM: the in-tree side's kubelet writes this itself, so a
	// kube-controller-manager entry moving with it is another controller.
	onlyCCM bool
	changed func(old, cur any) bool
}

// facets: what each cloud controller writes, and through which
// subresource, from its source (k8s.io/cloud-provider controllers and
// component-helpers' node utilities, v1.26–v1.31): the service controller
// patches status (addresses, finalizer); the cloud-node controller updates
// the Node (ProviderID, uninitialized taint) and patches addresses in
// status; the route controller patches the NetworkUnavailable condition;
// node IPAM patches spec.podCIDRs; cloud-node-lifecycle patches its
// shutdown taint.
var facets = []facet{
	{resource: "services", subresource: "status", controller: "service-lb-controller",
		changed: func(o, c any) bool { return ingressOf(o.(*corev1.Service)) != ingressOf(c.(*corev1.Service)) }},
	// The finalizer too is patched through status (the status strategy
	// resets only spec).
	{resource: "services", subresource: "status", controller: "service-lb-controller",
		changed: func(o, c any) bool {
			return hasLBFinalizer(o.(*corev1.Service)) != hasLBFinalizer(c.(*corev1.Service))
		}},
	{resource: "nodes", controller: "cloud-node-controller", onlyCCM: true,
		changed: func(o, c any) bool {
			on, cn := o.(*corev1.Node), c.(*corev1.Node)
			return on.Spec.ProviderID != cn.Spec.ProviderID || hasTaint(on, uninitializedTaint) != hasTaint(cn, uninitializedTaint)
		}},
	{resource: "nodes", subresource: "status", controller: "cloud-node-controller", onlyCCM: true,
		changed: func(o, c any) bool {
			return !slices.Equal(o.(*corev1.Node).Status.Addresses, c.(*corev1.Node).Status.Addresses)
		}},
	{resource: "nodes", subresource: "status", controller: "node-route-controller",
		changed: func(o, c any) bool {
			return networkUnavailable(o.(*corev1.Node)) != networkUnavailable(c.(*corev1.Node))
		}},
	{resource: "nodes", controller: "node-ipam-controller",
		changed: func(o, c any) bool {
			return !slices.Equal(o.(*corev1.Node).Spec.PodCIDRs, c.(*corev1.Node).Spec.PodCIDRs)
		}},
	{resource: "nodes", controller: "cloud-node-lifecycle-controller",
		changed: func(o, c any) bool {
			return hasTaint(o.(*corev1.Node), shutdownTaint) != hasTaint(c.(*corev1.Node), shutdownTaint)
		}},
}

const (
	uninitializedTaint = "node.cloudprovider.kubernetes.io/uninitialized"
	shutdownTaint      = "node.cloudprovider.kubernetes.io/shutdown"
	lbFinalizer        = "service.kubernetes.io/load-balancer-cleanup"
)

// managedWrites are the cloud controllers' writes between two versions of
// a Node or Service (old nil: the object was first seen, and nothing is
// known of what changed).
func managedWrites(resource string, old, cur metav1.Object) []timeline.Event {
	if old == nil || cur == nil {
		return nil
	}
	var out []timeline.Event
	for _, f := range facets {
		if f.resource != resource || !f.changed(old, cur) {
			continue
		}
		ms := moved(old.GetManagedFields(), cur.GetManagedFields(), f.subresource)
		if f.onlyCCM {
			ms = slices.DeleteFunc(ms, func(m managedEntry) bool { return m.Manager != "cloud-controller-manager" })
		}
		// Both managers' entries moving between two versions seen leaves
		// the writer unknown: no evidence rather than a guess.
		if len(ms) != 1 {
			continue
		}
		for _, m := range ms {
			r := resource
			if f.subresource != "" {
				r += "/" + f.subresource
			}
			out = append(out, timeline.Event{Time: m.Time.UTC(), Source: "managed-fields", Kind: timeline.ManagedWrite,
				Manager: m.Manager, Controller: f.controller,
				Attrs: map[string]string{"resource": r, "name": objectName(cur), "operation": string(m.Operation)}})
		}
	}
	return out
}

// managedEntry is a manager's entry and when it last moved.
type managedEntry struct {
	Manager   string
	Operation metav1.ManagedFieldsOperationType
	Time      time.Time
}

// moved are the managers' entries for subresource whose time is later in
// cur than in old (or new in cur).
func moved(old, cur []metav1.ManagedFieldsEntry, subresource string) []managedEntry {
	before := map[string]time.Time{}
	for _, e := range old {
		if e.Time != nil {
			before[e.Manager+"|"+string(e.Operation)+"|"+e.Subresource] = e.Time.Time
		}
	}
	var out []managedEntry
	for _, e := range cur {
		m, ok := managers.Manager(e.Manager)
		if e.Subresource != subresource || e.Time == nil || !ok {
			continue
		}
		if t, ok := before[e.Manager+"|"+string(e.Operation)+"|"+e.Subresource]; ok && !e.Time.Time.After(t) {
			continue
		}
		out = append(out, managedEntry{Manager: m, Operation: e.Operation, Time: e.Time.Time})
	}
	return out
}

func objectName(o metav1.Object) string {
	if o.GetNamespace() == "" {
		return o.GetName()
	}
	return o.GetNamespace() + "/" + o.GetName()
}

func hasTaint(n *corev1.Node, key string) bool {
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key })
}

func hasLBFinalizer(s *corev1.Service) bool { return slices.Contains(s.Finalizers, lbFinalizer) }

// networkUnavailable is the route controller's condition, as written.
func networkUnavailable(n *corev1.Node) string {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeNetworkUnavailable {
			return strings.Join([]string{string(c.Status), c.Reason, c.LastTransitionTime.String(), c.LastHeartbeatTime.String()}, "|")
		}
	}
	return ""
}
