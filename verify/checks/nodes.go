package checks

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

const uninitializedTaint = "node.cloudprovider.kubernetes.io/uninitialized"

// nodeHistory is every observed state of each node.
func nodeHistory(evs []timeline.Event) (map[string][]timeline.Event, []string) {
	h := map[string][]timeline.Event{}
	for _, e := range evs {
		switch e.Kind {
		case timeline.NodeAdded, timeline.NodeChanged, timeline.NodeDeleted:
			h[e.Node] = append(h[e.Node], e)
		}
	}
	names := make([]string, 0, len(h))
	for n := range h {
		names = append(names, n)
	}
	sort.Strings(names)
	return h, names
}

// CheckProviderIDs: every node that exists at the end has a ProviderID,
// and no node's ProviderID ever changed once set (across deletion and
// re-registration under the same name too).
func CheckProviderIDs(evs []timeline.Event, cfg Config) []Result {
	h, names := nodeHistory(evs)
	if len(names) == 0 {
		return noNodes(evs, ProviderID)
	}
	_, end := span(evs)
	var out []Result
	for _, n := range names {
		var vs []Violation
		first, firstAt := "", time.Time{}
		for _, e := range h[n] {
			id := e.Attrs["providerID"]
			if id == "" || e.Kind == timeline.NodeDeleted {
				continue
			}
			if first == "" {
				first, firstAt = id, e.Time
			} else if id != first {
				vs = append(vs, Violation{From: firstAt, To: e.Time, Sources: []string{"nodes"},
					Message:  fmt.Sprintf("ProviderID changed from %s to %s", first, id),
					Evidence: []string{fmt.Sprintf("%s %s %s", clock(firstAt), "first", first), fmt.Sprintf("%s %s %s", clock(e.Time), e.Kind, id)}})
				first, firstAt = id, e.Time
			}
		}
		last := h[n][len(h[n])-1]
		if last.Kind != timeline.NodeDeleted && last.Attrs["providerID"] == "" {
			vs = append(vs, Violation{From: h[n][0].Time, To: end, Sources: []string{"nodes"},
				Message: "has no ProviderID at the end", Evidence: slices.Concat([]string{fmt.Sprintf("registered %s, never initialised", clock(h[n][0].Time))}, lookupRefusals(evs, n),
					loggedErrors(evs, h[n][0].Time, end, naming(n), maxLoggedCited))})
		}
		out = append(out, result(ProviderID, n, vs, "ProviderID "+orNone(first), nil))
	}
	return out
}

// CheckUninitializedTaint: no node is left with the uninitialized taint.
func CheckUninitializedTaint(evs []timeline.Event, cfg Config) []Result {
	h, names := nodeHistory(evs)
	if len(names) == 0 {
		return noNodes(evs, Uninitialized)
	}
	_, end := span(evs)
	var out []Result
	for _, n := range names {
		last := h[n][len(h[n])-1]
		var vs []Violation
		if last.Kind != timeline.NodeDeleted && strings.Contains(last.Attrs["taints"], uninitializedTaint) {
			since := last.Time
			for i := len(h[n]) - 1; i >= 0 && strings.Contains(h[n][i].Attrs["taints"], uninitializedTaint); i-- {
				since = h[n][i].Time
			}
			vs = append(vs, Violation{From: since, To: end, Sources: []string{"nodes"},
				Message: "still tainted " + uninitializedTaint + " at the end: no cloud-node controller initialised it", Evidence: lookupRefusals(evs, n)})
		}
		out = append(out, result(Uninitialized, n, vs, "taints: "+orNone(last.Attrs["taints"]), nil))
	}
	return out
}

// lookupRefusals are the cloud's failed answers to the managers' look-ups
// of node's instance (by name or by a ProviderID that ends in it): why a
// cloud-node controller could not initialise it, or a lifecycle controller
// took it for gone (credentials denied the read, or scoped to another
// region or zone).
func lookupRefusals(evs []timeline.Event, node string) []string {
	return auditRefusals(evs, func(op, resource string) bool {
		return (op == "GetInstance" || op == "GetInstanceByProviderID") && (resource == node || strings.HasSuffix(resource, "/"+node))
	})
}

// CheckNodeDeletion: no Node was deleted while its instance still existed,
// unless the procedure removed that node itself.
func CheckNodeDeletion(evs []timeline.Event, cfg Config) []Result {
	removed := removals(evs)
	h, names := nodeHistory(evs)
	if len(names) == 0 {
		return noNodes(evs, NodeDeletion)
	}
	var out []Result
	for _, n := range names {
		var vs []Violation
		unknown := 0
		for _, e := range h[n] {
			if e.Kind != timeline.NodeDeleted {
				continue
			}
			if at, ok := removed[n]; ok && !e.Time.Before(at.Add(-cfg.Tolerance)) {
				continue
			}
			if inst := e.Attrs["instance"]; inst != "exists" {
				if inst != "gone" {
					unknown++
				}
				continue
			}
			vs = append(vs, Violation{From: e.Time, To: e.Time, Sources: []string{"nodes", "cloud"},
				Message: "Node deleted while its instance exists: " + deleter(evs, n, e.Time, cfg), Evidence: lookupRefusals(evs, n)})
		}
		switch {
		case unknown > 0 && len(vs) == 0 && cloudOutOfReach(evs):
			out = append(out, notJudged(NodeDeletion, n, fmt.Sprintf("deleted %d time(s); whether its instance still existed is unknown: %s", unknown, noCloudWhy)))
			continue
		case unknown > 0 && len(vs) == 0:
			out = append(out, unproven(evs, NodeDeletion, n, fmt.Sprintf("deleted %d time(s), but the cloud observer did not say whether its instance still existed", unknown)))
			continue
		}
		out = append(out, result(NodeDeletion, n, vs, fmt.Sprintf("%d deletion(s) checked", countKind(h[n], timeline.NodeDeleted)), nil))
	}
	return out
}

// deleter names who deleted Node n, seen by the nodes observer at seen,
// from the API audit: a manager's delete just before (the watch trails the
// write), or none when the audit saw writes but no manager's delete of it.
func deleter(evs []timeline.Event, n string, seen time.Time, cfg Config) string {
	audited := false
	for _, e := range evs {
		if e.Kind != timeline.APIWrite {
			continue
		}
		audited = true
		if e.Attrs["verb"] == "delete" && e.Attrs["resource"] == "nodes" && e.Attrs["name"] == n &&
			!e.Time.After(seen.Add(cfg.Tolerance)) && !e.Time.Before(seen.Add(-deleteWatchLag)) {
			return fmt.Sprintf("by %s of %s (API audit, user %s)", e.Controller, e.Manager, e.Attrs["user"])
		}
	}
	if audited {
		return "by no manager (the API audit has no manager's delete of it): something outside the managers deleted it"
	}
	return "by a cloud-node-lifecycle controller judging it gone, or from outside the managers (no API audit to tell)"
}

// deleteWatchLag bounds how long a Node watch may trail the delete it reports.
const deleteWatchLag = 10 * time.Second

func countKind(evs []timeline.Event, kind string) int {
	n := 0
	for _, e := range evs {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
