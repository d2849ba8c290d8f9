package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

func nodeSeen(sec float64, kind, node, providerID string) timeline.Event {
	return timeline.Event{Time: at(sec), Source: "nodes", Kind: kind, Node: node, Attrs: map[string]string{"providerID": providerID}}
}

// An instance's Node keeps its name: a second Node with the same
// ProviderID (a kubelet that came back under its hostname) fails; a Node
// replaced by a new instance, or re-registered under its own name, passes;
// no ProviderID at all is unproven, and so are Nodes without an InternalIP
// for the machine rule.
func TestNodeIdentity(t *testing.T) {
	const id, other = "aws:///zone-a/i-0123", "aws:///zone-b/i-0456"
	renamed := join(window(0, 300), []timeline.Event{
		nodeSeen(1, timeline.NodeAdded, "ip-10-0-0-3.r.compute.internal", id),
		nodeSeen(120, timeline.NodeAdded, "c-worker", ""),
		nodeSeen(125, timeline.NodeChanged, "c-worker", id),
	})
	r := one(t, CheckNodeIdentity(renamed, cfg), "ip-10-0-0-3.r.compute.internal")
	if r.Passed || len(r.Violations) != 1 || !strings.Contains(r.Violations[0].Message, "registered as 2 Nodes: ip-10-0-0-3.r.compute.internal, c-worker") {
		t.Errorf("renamed: %+v", r)
	}
	kept := join(window(0, 300), []timeline.Event{
		nodeAt(1, timeline.NodeAdded, "ip-10-0-0-3.r.compute.internal", id, "10.0.0.3"),
		nodeAt(100, timeline.NodeDeleted, "ip-10-0-0-3.r.compute.internal", id, "10.0.0.3"),
		nodeAt(110, timeline.NodeAdded, "ip-10-0-0-3.r.compute.internal", id, "10.0.0.3"),
		nodeAt(120, timeline.NodeAdded, "ip-10-0-0-9.r.compute.internal", other, "10.0.0.9"),
	})
	for _, r := range CheckNodeIdentity(kept, cfg) {
		if !r.Passed {
			t.Errorf("kept: %+v", r)
		}
	}
	// The same Nodes with no address recorded: no machine to follow.
	noAddresses := join(window(0, 300), []timeline.Event{
		nodeSeen(1, timeline.NodeAdded, "ip-10-0-0-3.r.compute.internal", id),
		nodeSeen(120, timeline.NodeAdded, "ip-10-0-0-9.r.compute.internal", other),
	})
	if r := one(t, CheckNodeIdentity(noAddresses, cfg), "machines"); r.Passed || !strings.Contains(r.Summary, "no Node had an InternalIP") {
		t.Errorf("no addresses: %+v", r)
	}
	bare := join(window(0, 300), []timeline.Event{nodeSeen(1, timeline.NodeAdded, "n", "")})
	if r := one(t, CheckNodeIdentity(bare, cfg), "nodes"); r.Passed || !strings.Contains(r.Summary, "unproven") && !strings.Contains(r.Violations[0].Message, "unproven") {
		t.Errorf("no ProviderID: %+v", r)
	}
	if r := one(t, CheckNodeIdentity(window(0, 300), cfg), "nodes"); r.Passed {
		t.Errorf("no Node: %+v", r)
	}
}

func nodeAt(sec float64, kind, node, providerID, ip string) timeline.Event {
	e := nodeSeen(sec, kind, node, providerID)
	e.Attrs["addresses"] = "Hostname=" + node + ",InternalIP=" + ip
	return e
}

// One machine, two Nodes at once: a kubelet that came back under its
// hostname registers a second Node with the machine's InternalIP while the
// first is still there, whether or not the new one ever gets a ProviderID.
// An address that passes from a deleted Node to a new one does not count.
func TestNodeIdentitySharedMachine(t *testing.T) {
	const id = "aws:///zone-a/i-0123"
	renamed := join(window(0, 300), []timeline.Event{
		nodeAt(1, timeline.NodeAdded, "ip-10-0-0-3.r.compute.internal", id, "10.0.0.3"),
		nodeAt(120, timeline.NodeAdded, "c-worker", "", "10.0.0.3"),
		nodeAt(130, timeline.NodeChanged, "c-worker", "", "10.0.0.3"),
	})
	var failed []Result
	for _, r := range CheckNodeIdentity(renamed, cfg) {
		if !r.Passed {
			failed = append(failed, r)
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0].Summary, "the machine at 10.0.0.3 registered as 2 Nodes at once: ip-10-0-0-3.r.compute.internal, c-worker") ||
		len(failed[0].Violations[0].Evidence) != 2 {
		t.Errorf("renamed without a ProviderID: %+v", failed)
	}
	// A machine with two interfaces whose two Nodes list them in
	// different orders is one machine, said once.
	twoInterfaces := join(window(0, 300), []timeline.Event{
		nodeAt(1, timeline.NodeAdded, "ip-10-0-0-3.r.compute.internal", id, "10.0.0.3"),
		nodeAt(120, timeline.NodeAdded, "c-worker", "", "100.64.0.3"),
	})
	twoInterfaces[len(twoInterfaces)-2].Attrs["addresses"] += ",InternalIP=100.64.0.3"
	twoInterfaces[len(twoInterfaces)-1].Attrs["addresses"] += ",InternalIP=10.0.0.3"
	failed = nil
	for _, r := range CheckNodeIdentity(twoInterfaces, cfg) {
		if !r.Passed {
			failed = append(failed, r)
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0].Summary, "registered as 2 Nodes at once") {
		t.Errorf("one machine with two interfaces, first addresses differing: %+v", failed)
	}
	reused := join(window(0, 300), []timeline.Event{
		nodeAt(1, timeline.NodeAdded, "a", id, "10.0.0.3"),
		nodeAt(100, timeline.NodeDeleted, "a", id, "10.0.0.3"),
		nodeAt(110, timeline.NodeAdded, "b", "aws:///zone-a/i-0999", "10.0.0.3"),
	})
	for _, r := range CheckNodeIdentity(reused, cfg) {
		if !r.Passed {
			t.Errorf("address reused after deletion: %+v", r)
		}
	}
}
