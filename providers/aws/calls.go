package aws

import (
	"slices"

	"github.com/handover-sh/handover/simulate/cloudserver/amazon/iampolicy"
)

// actionsCalled are the AWS actions each release of the aws provider's
// code calls, among those a rehearsal's cloud serves: its EC2 and ELB
// clients' call sites (c.ec2.X, c.elb.X) in the package named, volumes
// and NLBs aside (the cloud serves neither). Held to the source by
// TestActionsCalledHoldToTheirSource.
var actionsCalled = map[string]struct {
	pkg     string // the package's directory in its module
	actions []string
}{
	"k8s.io/legacy-cloud-providers/aws@v0.26.13": {"aws", slices.Concat(managersEC2, classicELB)},
	"k8s.io/cloud-provider-aws@v1.27.2": {"pkg/providers/v1", slices.Concat(managersEC2, classicELB, []string{
		// Tags the cluster's resources it finds untagged (tags.go),
		// chooses a new load balancer's subnets by zone type
		// (getZoneTypesByName), reads an instance's interfaces.
		"ec2:CreateTags", "ec2:DeleteTags", "ec2:DescribeAvailabilityZones", "ec2:DescribeNetworkInterfaces"})},
}

// managersEC2 are the EC2 actions both releases call: instances, subnets,
// security groups, route tables and routes.
var managersEC2 = []string{"ec2:AuthorizeSecurityGroupIngress", "ec2:CreateRoute", "ec2:CreateSecurityGroup", "ec2:DeleteRoute",
	"ec2:DeleteSecurityGroup", "ec2:DescribeInstances", "ec2:DescribeRouteTables", "ec2:DescribeSecurityGroups", "ec2:DescribeSubnets",
	"ec2:ModifyInstanceAttribute", "ec2:RevokeSecurityGroupIngress"}

// classicELB are the classic load balancer actions both releases call.
var classicELB = []string{"elasticloadbalancing:AddTags", "elasticloadbalancing:ApplySecurityGroupsToLoadBalancer",
	"elasticloadbalancing:AttachLoadBalancerToSubnets", "elasticloadbalancing:ConfigureHealthCheck", "elasticloadbalancing:CreateLoadBalancer",
	"elasticloadbalancing:CreateLoadBalancerListeners", "elasticloadbalancing:CreateLoadBalancerPolicy", "elasticloadbalancing:DeleteLoadBalancer",
	"elasticloadbalancing:DeleteLoadBalancerListeners", "elasticloadbalancing:DeregisterInstancesFromLoadBalancer",
	"elasticloadbalancing:DescribeLoadBalancerAttributes", "elasticloadbalancing:DescribeLoadBalancerPolicies",
	"elasticloadbalancing:DescribeLoadBalancers", "elasticloadbalancing:DetachLoadBalancerFromSubnets",
	"elasticloadbalancing:ModifyLoadBalancerAttributes", "elasticloadbalancing:RegisterInstancesWithLoadBalancer",
	"elasticloadbalancing:SetLoadBalancerPoliciesForBackendServer", "elasticloadbalancing:SetLoadBalancerPoliciesOfListener"}

// kubeletCalls are what a kubelet calls, whichever its version: the
// in-tree provider describes its own instance (newAWSCloud), and the image
// credential provider, in tree or the plugin, asks ECR for a token.
var kubeletCalls = []string{"ec2:DescribeInstances", "ecr:GetAuthorizationToken"}

// PolicyGaps are the actions side's components, running codes, call that
// the policy does not allow: the kubelets' whatever their code, a
// manager's by its code's release (an unknown release: none known).
func (Provider) PolicyGaps(side string, codes []string, data []byte) []string {
	p, err := iampolicy.Parse(data)
	if err != nil {
		return nil // CheckPolicy says why
	}
	called := kubeletCalls
	if side != "kubelet" {
		called = nil
		for _, c := range codes {
			called = append(called, actionsCalled[c].actions...)
		}
	}
	var out []string
	for _, a := range called {
		if !p.Decide(a).Allowed && !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}
