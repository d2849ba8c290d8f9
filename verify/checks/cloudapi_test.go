package checks

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/timeline"
)

func apiAction(service, action, calls string, unimplemented bool) timeline.Event {
	e := timeline.Event{Time: at(290), Source: "cloud-audit", Kind: timeline.CloudAPIAction,
		Attrs: map[string]string{"api": "aws", "service": service, "action": action, "calls": calls, "refused": "0"}}
	if unimplemented {
		e.Attrs["unimplemented"], e.Attrs["refused"] = "true", calls
	}
	return e
}

// An action the cloud does not serve fails; every action served passes;
// provider code that speaks an API with no call recorded is unproven; the
// simulated cloud's own provider has nothing to judge.
func TestCloudAPIActions(t *testing.T) {
	code := timeline.Event{Time: at(0), Source: "rehearsal", Kind: timeline.ProviderCode, Attrs: map[string]string{"side": "external", "api": "aws"}}
	served := join(window(0, 300), []timeline.Event{code, apiAction("ec2", "DescribeInstances", "40", false), apiAction("elasticloadbalancing", "CreateLoadBalancer", "2", false)})
	if r := one(t, CheckCloudAPIActions(served, cfg), "aws"); !r.Passed || !strings.Contains(r.Summary, "2 actions called 42 times") {
		t.Errorf("served: %+v", r)
	}
	missing := join(window(0, 300), []timeline.Event{code, apiAction("ec2", "DescribeInstances", "40", false), apiAction("ec2", "DescribeVolumes", "3", true)})
	if r := one(t, CheckCloudAPIActions(missing, cfg), "ec2:DescribeVolumes"); r.Passed || !strings.Contains(r.Summary, "called 3 times") {
		t.Errorf("unimplemented: %+v", r)
	}
	if r := one(t, CheckCloudAPIActions(join(window(0, 300), []timeline.Event{code}), cfg), "aws"); !r.Unproven() || !strings.HasPrefix(r.Summary, "unproven: ") {
		t.Errorf("no calls: %+v", r)
	}
	simulated := join(window(0, 300), []timeline.Event{{Time: at(0), Source: "rehearsal", Kind: timeline.ProviderCode, Attrs: map[string]string{"side": "external"}}})
	if rs := CheckCloudAPIActions(simulated, cfg); len(rs) != 0 {
		t.Errorf("the simulated provider's own API: %+v", rs)
	}
}
