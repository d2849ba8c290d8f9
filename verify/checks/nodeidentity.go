package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// NodeIdentity is the check that an instance keeps its Node's name across
// the procedure. Providers name Nodes differently (the in-tree aws kubelet
// by the instance's private DNS name; an external kubelet by its hostname
// unless told otherwise): a kubelet switched without the name its
// provider gave registers a second Node for the same instance, which the
// cloud-controller-manager initialises with the same ProviderID while the
// first stays NotReady (rancher/rke2#7336, kubernetes/cloud-provider-aws#285).
const NodeIdentity = "node-identity"

// CheckNodeIdentity: every ProviderID the node watch saw was carried by one
// Node name throughout, and no two Nodes carried one machine's InternalIP
// at once (a kubelet renamed before the cloud gave the new Node a
// ProviderID, or when it never does). A timeline without Nodes, or whose
// Nodes never had a ProviderID, is unproven, besides what the addresses
// show.
func CheckNodeIdentity(evs []timeline.Event, _ Config) []Result {
	h, names := nodeHistory(evs)
	if len(names) == 0 {
		return noNodes(evs, NodeIdentity)
	}
	return append(sameProviderID(evs, h, names), sharedMachines(evs)...)
}

// sameProviderID: each ProviderID carried by one Node name.
func sameProviderID(evs []timeline.Event, h map[string][]timeline.Event, names []string) []Result {
	type sighting struct {
		node string
		ev   timeline.Event
	}
	byID := map[string][]sighting{}
	for _, n := range names {
		seen := map[string]bool{}
		for _, e := range h[n] {
			id := e.Attrs["providerID"]
			if id == "" || e.Kind == timeline.NodeDeleted || seen[id] {
				continue
			}
			seen[id] = true
			byID[id] = append(byID[id], sighting{n, e})
		}
	}
	if len(byID) == 0 {
		return []Result{unproven(evs, NodeIdentity, "nodes", "no Node had a ProviderID: no instance to follow")}
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []Result
	for _, id := range ids {
		ss := byID[id]
		sort.Slice(ss, func(i, j int) bool { return ss[i].ev.Time.Before(ss[j].ev.Time) })
		if len(ss) == 1 {
			out = append(out, result(NodeIdentity, ss[0].node, nil, "instance "+id+" kept its Node's name", nil))
			continue
		}
		var nodes, evidence []string
		for _, s := range ss {
			nodes = append(nodes, s.node)
			evidence = append(evidence, fmt.Sprintf("%s %s %s with %s", clock(s.ev.Time), s.ev.Kind, s.node, id))
		}
		v := Violation{From: ss[0].ev.Time, To: ss[len(ss)-1].ev.Time, Sources: []string{"nodes"},
			Message:  fmt.Sprintf("instance %s registered as %d Nodes: %s (a kubelet switched without the name its provider gave)", id, len(ss), strings.Join(nodes, ", ")),
			Evidence: evidence}
		out = append(out, result(NodeIdentity, ss[0].node, []Violation{v}, v.Message, nil))
	}
	return out
}

// sharedMachines: the Nodes that held one InternalIP at the same time —
// one machine registered under two names (a kubelet that came back under
// another name leaves its old Node behind, NotReady, with the address).
// Only failures are results: the ProviderIDs are the per-instance evidence.
// Nodes none of which ever had an InternalIP leave it unproven.
func sharedMachines(evs []timeline.Event) []Result {
	type share struct {
		nodes    []string
		evidence []string
		from, to time.Time
	}
	shares, sawIP := map[string]*share{}, false
	// Node → its InternalIPs now; InternalIP → its Nodes now. Every
	// InternalIP counts: two Nodes of one machine may list its interfaces
	// in different orders.
	ipsOf, holders := map[string][]string{}, map[string]map[string]bool{}
	for _, e := range nodeEvents(evs) {
		ips := internalIPs(e.Attrs["addresses"])
		if e.Kind == timeline.NodeDeleted {
			ips = nil
		}
		for _, old := range ipsOf[e.Node] {
			if !slices.Contains(ips, old) {
				delete(holders[old], e.Node)
			}
		}
		if len(ips) == 0 {
			delete(ipsOf, e.Node)
			continue
		}
		ipsOf[e.Node], sawIP = ips, true
		for _, ip := range ips {
			if holders[ip] == nil {
				holders[ip] = map[string]bool{}
			}
			holders[ip][e.Node] = true
			if len(holders[ip]) < 2 {
				continue
			}
			sh := shares[ip]
			if sh == nil {
				sh = &share{from: e.Time}
				shares[ip] = sh
			}
			for _, other := range sortedKeys(holders[ip]) {
				if other == e.Node {
					continue
				}
				for _, n := range []string{other, e.Node} {
					if !slices.Contains(sh.nodes, n) {
						sh.nodes = append(sh.nodes, n)
					}
				}
				sh.to = e.Time
				sh.evidence = append(sh.evidence, fmt.Sprintf("%s %s %s with InternalIP %s while Node %s holds it", clock(e.Time), e.Kind, e.Node, ip, other))
			}
		}
	}
	if !sawIP {
		return []Result{unproven(evs, NodeIdentity, "machines", "no Node had an InternalIP: no machine to follow")}
	}
	var out []Result
	seen := map[string]bool{} // the same Nodes sharing a machine's other interface too
	for _, ip := range sortedKeys(shares) {
		sh := shares[ip]
		key := strings.Join(slices.Sorted(slices.Values(sh.nodes)), ",")
		if seen[key] {
			continue
		}
		seen[key] = true
		v := Violation{From: sh.from, To: sh.to, Sources: []string{"nodes"}, Evidence: sh.evidence,
			Message: fmt.Sprintf("the machine at %s registered as %d Nodes at once: %s (a kubelet that came back under another name)", ip, len(sh.nodes), strings.Join(sh.nodes, ", "))}
		out = append(out, result(NodeIdentity, sh.nodes[0], []Violation{v}, v.Message, nil))
	}
	return out
}

// nodeEvents are the node watch's events in time order.
func nodeEvents(evs []timeline.Event) []timeline.Event {
	var out []timeline.Event
	for _, e := range evs {
		switch e.Kind {
		case timeline.NodeAdded, timeline.NodeChanged, timeline.NodeDeleted:
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// internalIPs are the InternalIPs of a node event's addresses attribute
// ("InternalIP=10.0.0.3,Hostname=…"), in order.
func internalIPs(addresses string) []string {
	var out []string
	for _, a := range strings.Split(addresses, ",") {
		if ip, ok := strings.CutPrefix(a, "InternalIP="); ok {
			out = append(out, ip)
		}
	}
	return out
}
