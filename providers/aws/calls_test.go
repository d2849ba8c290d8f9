package aws

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/modsource"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// callSite is a call of the provider's EC2 or ELB client by its cloud
// code (the SDK wrappers' own receiver, s, aside).
var callSite = regexp.MustCompile(`\b([a-zA-Z]+)\.(ec2|elb)\.([A-Z][A-Za-z]+)\(`)

// TestActionsCalledHoldToTheirSource: each release's actions are exactly
// its package's call sites of the EC2 and ELB clients among the actions
// the simulated cloud serves.
func TestActionsCalledHoldToTheirSource(t *testing.T) {
	f, err := amazon.New(amazon.Options{Cloud: api.NewClient("http://127.0.0.1:1", ""), Network: amazon.Network{Cluster: "c", Region: "r"}, Keys: awsapi.Keys{}})
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for svc, acts := range f.Actions() {
		for _, a := range acts {
			served = append(served, svc+":"+a)
		}
	}
	for code, rel := range actionsCalled {
		module := strings.Replace(code, "/"+rel.pkg+"@", "@", 1)
		text, ok := modsource.Text(t, modsource.Dir(t, module), rel.pkg)
		if !ok {
			t.Fatalf("%s has no %s", module, rel.pkg)
		}
		var want []string
		for _, m := range callSite.FindAllStringSubmatch(text, -1) {
			action := map[string]string{"ec2": "ec2:", "elb": "elasticloadbalancing:"}[m[2]] + m[3]
			if m[1] != "s" && slices.Contains(served, action) && !slices.Contains(want, action) {
				want = append(want, action)
			}
		}
		slices.Sort(want)
		got := slices.Sorted(slices.Values(rel.actions))
		if !slices.Equal(got, want) {
			t.Errorf("%s: listed %v\nits call sites of what the cloud serves: %v", code, got, want)
		}
	}
}

// A policy's gaps: what a side's code calls and the policy does not
// allow; the kubelets' whatever their code.
func TestPolicyGaps(t *testing.T) {
	doc := []byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","NotAction":"ec2:DescribeAvailabilityZones","Resource":"*"}}`)
	p := Provider{}
	if g := p.PolicyGaps("kcm", []string{"k8s.io/legacy-cloud-providers/aws@v0.26.13"}, doc); len(g) != 0 {
		t.Errorf("in tree: %v", g)
	}
	if g := p.PolicyGaps("ccm", []string{"k8s.io/cloud-provider-aws@v1.27.2"}, doc); !slices.Equal(g, []string{"ec2:DescribeAvailabilityZones"}) {
		t.Errorf("v1.27: %v", g)
	}
	ec2Only := []byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"ec2:*","Resource":"*"}}`)
	if g := p.PolicyGaps("kubelet", nil, ec2Only); !slices.Equal(g, []string{"ecr:GetAuthorizationToken"}) {
		t.Errorf("kubelets: %v", g)
	}
}

// TestDisabledIngressHoldsToItsSource: what the lint says of
// DisableSecurityGroupIngress (consequences in cloudconfig.go) — both
// releases' updateInstanceSecurityGroupsForLoadBalancer return at once
// with it, writing no rule.
func TestDisabledIngressHoldsToItsSource(t *testing.T) {
	returnsAtOnce := regexp.MustCompile(`func \(c \*Cloud\) updateInstanceSecurityGroupsForLoadBalancer\([^)]*\) error \{\s*if c\.cfg\.Global\.DisableSecurityGroupIngress \{\s*return nil\s*\}`)
	for code, rel := range actionsCalled {
		module := strings.Replace(code, "/"+rel.pkg+"@", "@", 1)
		text, ok := modsource.Text(t, modsource.Dir(t, module), rel.pkg+"/aws.go")
		if !ok || !returnsAtOnce.MatchString(text) {
			t.Errorf("%s: updateInstanceSecurityGroupsForLoadBalancer does not return at once with DisableSecurityGroupIngress", code)
		}
	}
}

// The route tables' shape and the RouteTableID stand-in hold to both
// releases' aws_routes.go: findRouteTable takes the table a cloud-config
// names, and without one refuses more than one tagged for the cluster.
func TestRouteTableFactsHoldToTheirSource(t *testing.T) {
	named := regexp.MustCompile(`func \(c \*Cloud\) findRouteTable\([^)]*\) \([^)]*\) \{[\s\S]*?if c\.cfg\.Global\.RouteTableID != "" \{`)
	refused := regexp.MustCompile(`if len\(tables\) != 1 \{\s*return nil, fmt\.Errorf\("found multiple matching AWS route tables for AWS cluster: %s"`)
	for code, rel := range actionsCalled {
		module := strings.Replace(code, "/"+rel.pkg+"@", "@", 1)
		text, ok := modsource.Text(t, modsource.Dir(t, module), rel.pkg+"/aws_routes.go")
		if !ok || !named.MatchString(text) || !refused.MatchString(text) {
			t.Errorf("%s: findRouteTable no longer takes the named table first, or no longer refuses several tagged ones", code)
		}
	}
}
