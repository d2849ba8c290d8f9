package checks

import (
	"fmt"
	"sort"
	"strings"

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
// Node name throughout. A timeline without Nodes, or whose Nodes never had
// a ProviderID, is unproven.
func CheckNodeIdentity(evs []timeline.Event, _ Config) []Result {
	h, names := nodeHistory(evs)
	if len(names) == 0 {
		return noNodes(evs, NodeIdentity)
	}
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
