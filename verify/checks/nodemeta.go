package checks

import (
	"fmt"
	"strings"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// NodeMetadata is the check that a Node keeps what the cloud controllers
// own on it across the hand-off.
const NodeMetadata = "node-metadata"

// nodeMetaAttrs are what a cloud provider sets on a Node besides its
// ProviderID (which provider-id judges): its addresses and the zone,
// region and instance-type labels. The in-tree provider and the external
// one must agree on them, or a Node changes under every workload that
// reads them (kubernetes/cloud-provider#56, kubernetes/kubernetes#121028).
var nodeMetaAttrs = []string{"addresses", "zone", "region", "instanceType"}

// CheckNodeMetadata: every Node that lived through the procedure (seen
// before its first step started, never deleted) keeps the addresses and
// labels it had before, to its end and in between: a value that changed
// and came back is a Node that flapped between two writers (an in-tree
// kubelet and a cloud-controller-manager that disagree,
// kubernetes/kubernetes#109793), and whatever read it meanwhile (a pod's
// hostIP, the API server dialling the kubelet) read the other. A Node that joined or went meanwhile is not
// judged (its row says so); a timeline whose node watch recorded no
// addresses is unproven.
func CheckNodeMetadata(evs []timeline.Event, _ Config) []Result {
	h, names := nodeHistory(evs)
	if len(names) == 0 {
		return noNodes(evs, NodeMetadata)
	}
	if !recordsAddresses(evs) {
		return []Result{unproven(evs, NodeMetadata, "nodes", "the node watch recorded Nodes but no addresses (a timeline from before they were recorded)")}
	}
	start := procedureStart(evs)
	var out []Result
	for _, n := range names {
		before, after, ok := livedThrough(h[n], start)
		if !ok {
			// Said, not left out: a scale rehearsal's fold takes a node
			// with no result for one never observed.
			out = append(out, notJudged(NodeMetadata, n, "joined or went during the procedure: no before and after to compare"))
			continue
		}
		var vs []Violation
		for _, k := range nodeMetaAttrs {
			if v, changed := metaChange(h[n], before, after, k); changed {
				vs = append(vs, v)
			}
		}
		out = append(out, result(NodeMetadata, n, vs, "addresses, zone, region and instance type the same before, during and after ("+metaSummary(after)+")",
			map[string]float64{"changed": float64(len(vs))}))
	}
	return out
}

// metaChange is attribute k's change on a Node from its state before the
// procedure: to a different value at the end, or away and back.
func metaChange(h []timeline.Event, before, after timeline.Event, k string) (Violation, bool) {
	was := before.Attrs[k]
	if after.Attrs[k] != was {
		return Violation{From: before.Time, To: after.Time, Sources: []string{"nodes"},
			Message:  fmt.Sprintf("%s changed from %q to %q across the procedure", k, was, after.Attrs[k]),
			Evidence: []string{stateLine(before, k, "before"), stateLine(after, k, "after")}}, true
	}
	// The end is as before, so every change away came back.
	var away, back timeline.Event
	changes, cur := 0, was
	for _, e := range h {
		v := e.Attrs[k]
		if !e.Time.After(before.Time) || e.Kind == timeline.NodeDeleted || v == cur {
			continue
		}
		switch {
		case cur == was:
			if changes == 0 {
				away = e
			}
			changes++
		case v == was:
			back = e
		}
		cur = v
	}
	if changes == 0 {
		return Violation{}, false
	}
	return Violation{From: away.Time, To: back.Time, Sources: []string{"nodes"},
		Message:  fmt.Sprintf("%s changed from %q to %q during the procedure and back (%d time(s)): something wrote another value meanwhile, as an in-tree kubelet and a cloud-controller-manager that disagree do", k, was, away.Attrs[k], changes),
		Evidence: []string{stateLine(before, k, "before"), stateLine(away, k, "first change"), stateLine(back, k, "last back")}}, true
}

func stateLine(e timeline.Event, k, what string) string {
	return fmt.Sprintf("%s %s %s=%s (%s)", clock(e.Time), e.Kind, k, e.Attrs[k], what)
}

// livedThrough is a node's last state before start and its last state, if
// it was there before start and is still there.
func livedThrough(h []timeline.Event, start time.Time) (before, after timeline.Event, ok bool) {
	for _, e := range h {
		if !e.Time.After(start) {
			before, ok = e, true
		}
	}
	after = h[len(h)-1]
	if !ok || before.Kind == timeline.NodeDeleted || after.Kind == timeline.NodeDeleted {
		return before, after, false
	}
	for _, e := range h {
		if e.Kind == timeline.NodeDeleted && e.Time.After(start) {
			return before, after, false // went and came back: another machine
		}
	}
	return before, after, true
}

// initialList bounds how long after its first event the node watch's
// initial list takes to arrive: the Nodes seen by then were there when the
// observation began.
const initialList = 10 * time.Second

// procedureStart is the last moment at which a node's state counts as
// "before": the first step's start (the observers run, and their initial
// list is in, before it), or, where no step ran (an observation of a
// procedure run by hand), the end of the node watch's initial list.
func procedureStart(evs []timeline.Event) time.Time {
	var firstNode time.Time
	for _, e := range evs {
		switch {
		case e.Kind == timeline.StepStart:
			return e.Time
		case firstNode.IsZero() && (e.Kind == timeline.NodeAdded || e.Kind == timeline.NodeChanged):
			firstNode = e.Time
		}
	}
	return firstNode.Add(initialList)
}

// recordsAddresses says whether the node watch recorded addresses at all.
func recordsAddresses(evs []timeline.Event) bool {
	for _, e := range evs {
		if _, ok := e.Attrs["addresses"]; ok && (e.Kind == timeline.NodeAdded || e.Kind == timeline.NodeChanged) {
			return true
		}
	}
	return false
}

func metaSummary(e timeline.Event) string {
	var parts []string
	for _, k := range nodeMetaAttrs {
		if v := e.Attrs[k]; v != "" {
			parts = append(parts, k+" "+v)
		}
	}
	if len(parts) == 0 {
		return "none set"
	}
	return strings.Join(parts, "; ")
}
