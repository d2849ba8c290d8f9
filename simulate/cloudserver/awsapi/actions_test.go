package awsapi

// providerActions are the actions of the AWS APIs that the aws providers'
// code can call: the methods of the EC2, ELB and ELBV2 interfaces in
// k8s.io/legacy-cloud-providers@v0.26.15 aws/aws.go (the in-tree provider
// of v1.26) and k8s.io/cloud-provider-aws@v1.27.2 pkg/providers/v1/aws.go
// (which adds DeleteTags, DescribeAvailabilityZones and
// DescribeNetworkInterfaces). Interface methods that wrap a paginated or
// waiting call are listed by the action they send (DescribeInstances for
// the pages; DescribeLoadBalancers for WaitUntilLoadBalancersDeleted).
var providerActions = map[string][]string{
	"ec2": {
		"DescribeInstances", "AttachVolume", "DetachVolume", "DescribeVolumes", "CreateVolume", "DeleteVolume",
		"ModifyVolume", "DescribeVolumesModifications", "DescribeSecurityGroups", "CreateSecurityGroup",
		"DeleteSecurityGroup", "AuthorizeSecurityGroupIngress", "RevokeSecurityGroupIngress", "DescribeSubnets",
		"CreateTags", "DeleteTags", "DescribeRouteTables", "CreateRoute", "DeleteRoute", "ModifyInstanceAttribute",
		"DescribeVpcs", "DescribeAvailabilityZones", "DescribeNetworkInterfaces",
	},
	"elasticloadbalancing": {
		"CreateLoadBalancer", "DeleteLoadBalancer", "DescribeLoadBalancers", "AddTags",
		"RegisterInstancesWithLoadBalancer", "DeregisterInstancesFromLoadBalancer", "CreateLoadBalancerPolicy",
		"SetLoadBalancerPoliciesForBackendServer", "SetLoadBalancerPoliciesOfListener",
		"DescribeLoadBalancerPolicies", "DetachLoadBalancerFromSubnets", "AttachLoadBalancerToSubnets",
		"CreateLoadBalancerListeners", "DeleteLoadBalancerListeners", "ApplySecurityGroupsToLoadBalancer",
		"ConfigureHealthCheck", "DescribeLoadBalancerAttributes", "ModifyLoadBalancerAttributes",
	},
	"elasticloadbalancingv2": {
		"AddTags", "CreateLoadBalancer", "DescribeLoadBalancers", "DeleteLoadBalancer",
		"ModifyLoadBalancerAttributes", "DescribeLoadBalancerAttributes", "CreateTargetGroup",
		"DescribeTargetGroups", "ModifyTargetGroup", "DeleteTargetGroup", "DescribeTargetHealth",
		"DescribeTargetGroupAttributes", "ModifyTargetGroupAttributes", "RegisterTargets", "DeregisterTargets",
		"CreateListener", "DescribeListeners", "DeleteListener", "ModifyListener",
	},
}
