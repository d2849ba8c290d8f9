package checks

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/handover-sh/handover/timeline"
)

// CheckPodCIDRs: no two Nodes hold overlapping pod CIDRs at the same time,
// and no Node's pod CIDRs change while it lives. Node IPAM keeps its map
// of free ranges in memory; two allocators running at once (node IPAM
// moving to the CCM without leader migration) each hand out ranges the
// other does not know about, and pods on two nodes get the same addresses.
func CheckPodCIDRs(evs []timeline.Event, cfg Config) []Result {
	h, names := nodeHistory(evs)
	if len(names) == 0 {
		return noNodes(evs, PodCIDR)
	}
	if !podCIDRsRecorded(h) {
		return []Result{unproven(evs, PodCIDR, "nodes", fmt.Sprintf("the node watch recorded %d Node(s) but none of their pod CIDRs", len(names)))}
	}
	vs, given := podCIDRViolations(evs)
	verdict := "no overlap, no change"
	if len(vs) > 0 {
		verdict = fmt.Sprintf("%d overlap(s) or change(s)", len(vs))
	}
	return []Result{result(PodCIDR, "nodes", vs, fmt.Sprintf("%d of %d Node(s) got pod CIDRs; %s", given, len(h), verdict),
		map[string]float64{"nodes_with_cidrs": float64(given)})}
}

// podCIDRsRecorded: the node watch wrote pod CIDRs ("" before node IPAM
// gave one) on some Node's events; an older observer wrote none.
func podCIDRsRecorded(h map[string][]timeline.Event) bool {
	for _, evs := range h {
		for _, e := range evs {
			if _, ok := e.Attrs["podCIDRs"]; ok {
				return true
			}
		}
	}
	return false
}

// podCIDRViolations replays the Node events in order, holding each live
// Node's ranges.
func podCIDRViolations(evs []timeline.Event) ([]Violation, int) {
	type held struct {
		cidrs string
		since timeline.Event
	}
	live := map[string]held{}
	everHad := map[string]bool{}
	reported := map[string]bool{}
	var vs []Violation
	for _, e := range evs {
		switch e.Kind {
		case timeline.NodeDeleted:
			delete(live, e.Node)
			continue
		case timeline.NodeAdded, timeline.NodeChanged:
		default:
			continue
		}
		cidrs := e.Attrs["podCIDRs"]
		if cidrs == "" {
			continue
		}
		everHad[e.Node] = true
		if prev, ok := live[e.Node]; ok && prev.cidrs != cidrs {
			vs = append(vs, Violation{From: prev.since.Time, To: e.Time, Sources: []string{"nodes"},
				Message:  fmt.Sprintf("%s: pod CIDRs changed from %s to %s while the Node lived", e.Node, prev.cidrs, cidrs),
				Evidence: []string{clock(prev.since.Time) + " " + prev.cidrs, clock(e.Time) + " " + cidrs}})
		} else if ok {
			continue
		}
		live[e.Node] = held{cidrs, e}
		for _, other := range sortedKeys(live) {
			pair := e.Node + "|" + other
			if other == e.Node || reported[pair] || !overlap(cidrs, live[other].cidrs) {
				continue
			}
			reported[pair], reported[other+"|"+e.Node] = true, true
			vs = append(vs, Violation{From: e.Time, To: e.Time, Sources: []string{"nodes"},
				Message: fmt.Sprintf("%s got pod CIDRs %s, overlapping %s's %s: two node IPAM allocators", e.Node, cidrs, other, live[other].cidrs),
				Evidence: []string{clock(live[other].since.Time) + " " + other + " " + live[other].cidrs,
					clock(e.Time) + " " + e.Node + " " + cidrs}})
		}
	}
	return vs, len(everHad)
}

// overlap: some range of a overlaps some range of b (comma-separated
// prefixes; unparsable ones compare as text).
func overlap(a, b string) bool {
	for _, x := range strings.Split(a, ",") {
		for _, y := range strings.Split(b, ",") {
			px, errx := netip.ParsePrefix(x)
			py, erry := netip.ParsePrefix(y)
			if errx != nil || erry != nil {
				if x == y {
					return true
				}
				continue
			}
			if px.Overlaps(py) {
				return true
			}
		}
	}
	return false
}
