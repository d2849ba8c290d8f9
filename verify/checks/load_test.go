package checks

import (
	"maps"
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

func TestLoad(t *testing.T) {
	moderate := map[string]string{"profile": "moderate", "servicesCreated": "9", "nodesJoined": "2", "nodesTerminated": "1", "failed": "0",
		"apiQPSTarget": "20", "apiQPSAchieved": "19.87", "churnActionsTarget": "24", "churnActionsDone": "24",
		"nodeJoinsAsked": "2", "nodeTerminationsAsked": "1", "loadSeconds": "190.2"}
	with := func(base map[string]string, kv ...string) []timeline.Event {
		attrs := maps.Clone(base)
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(attrs, kv[i])
			} else {
				attrs[kv[i]] = kv[i+1]
			}
		}
		return []timeline.Event{{Time: at(100), Source: "load", Kind: timeline.LoadStop, Attrs: attrs}}
	}
	old := map[string]string{"profile": "moderate", "servicesCreated": "12", "nodesJoined": "2", "nodesTerminated": "1", "failed": "0"}
	for _, tc := range []struct {
		name, subject string
		evs           []timeline.Event
		fails         string // what the violation says; "" passes
	}{
		{"delivered", "moderate", with(moderate), ""},
		{"API rate at the tolerance", "moderate", with(moderate, "apiQPSAchieved", "16"), ""},
		{"Service churn short: reported, not judged", "moderate", with(moderate, "churnActionsDone", "15"), ""},
		{"light: no node churn asked", "light", with(moderate, "profile", "light", "apiQPSTarget", "5", "apiQPSAchieved", "4.9",
			"nodeJoinsAsked", "0", "nodesJoined", "0", "nodeTerminationsAsked", "0", "nodesTerminated", "0"), ""},
		{"none, old load.stop", "none", with(old, "profile", "none", "nodesJoined", "0", "nodesTerminated", "0"), ""},
		{"none, zero targets", "none", with(moderate, "profile", "none", "apiQPSTarget", "0", "apiQPSAchieved", "0",
			"nodeJoinsAsked", "0", "nodesJoined", "0", "nodeTerminationsAsked", "0", "nodesTerminated", "0"), ""},
		{"throttled API load", "moderate", with(moderate, "apiQPSAchieved", "4.13"), "API load delivered 4.1 of 20 QPS (21 %)"},
		{"a join short", "moderate", with(moderate, "nodesJoined", "1"), "node churn delivered 1 of 2 worker joins"},
		{"a termination short", "moderate", with(moderate, "nodesTerminated", "0"), "node churn delivered 0 of 1 instance terminations"},
		{"a failed action", "moderate", with(moderate, "failed", "1"), "1 load actions failed"},
		{"old load.stop: no evidence", "moderate", with(old), "does not say what profile moderate delivered"},
		{"a target, no achieved rate", "moderate", with(moderate, "apiQPSAchieved", ""), "no apiQPSTarget/apiQPSAchieved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := one(t, CheckLoad(tc.evs, cfg), tc.subject)
			if r.Passed != (tc.fails == "") {
				t.Fatalf("passed=%t, want %t: %+v", r.Passed, tc.fails == "", r)
			}
			if tc.fails != "" && !strings.Contains(r.Violations[0].Message, tc.fails) {
				t.Fatalf("%q does not say %q", r.Violations[0].Message, tc.fails)
			}
		})
	}
	if rs := CheckLoad(nil, cfg); len(rs) != 0 {
		t.Fatalf("no load, no result: %+v", rs)
	}
	if r := one(t, CheckLoad(with(moderate), cfg), "moderate"); !strings.Contains(r.Summary, "19.9 of 20 QPS") || r.Metrics["apiQPSAchieved"] != 19.87 {
		t.Fatalf("the summary and metrics do not say the achieved rate: %+v", r)
	}
}
