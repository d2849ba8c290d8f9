package amazon

import (
	"net/http"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// elbRefusals are Elastic Load Balancing's answers to the cloud's knobs
// (its API reference's common errors: AccessDenied, Throttling,
// ServiceUnavailable).
var elbRefusals = awsapi.Refusals{
	Denied:      awsapi.Error{Status: http.StatusForbidden, Code: "AccessDenied", Message: "You are not authorized to perform this operation."},
	Throttled:   awsapi.Error{Status: http.StatusBadRequest, Code: "Throttling", Message: "Rate exceeded"},
	Unavailable: awsapi.Error{Status: http.StatusServiceUnavailable, Code: "ServiceUnavailable", Message: "The request has failed due to a temporary failure of the server."},
}

// elb is the classic Elastic Load Balancing API, the one the providers
// use for a Service of type LoadBalancer unless an annotation asks for an
// NLB (the ELBV2 API, not served here: its actions answer InvalidAction).
func (f *Face) elb() awsapi.Service {
	return awsapi.Service{
		Name: "elasticloadbalancing", Protocol: awsapi.Query, Namespace: "http://elasticloadbalancing.amazonaws.com/doc/2012-06-01/",
		Refusals: elbRefusals,
		Actions: []awsapi.Action{
			awsapi.Op("DescribeLoadBalancers", f.describeLoadBalancers),
			awsapi.Op("CreateLoadBalancer", f.createLoadBalancer),
			awsapi.Op("DeleteLoadBalancer", f.deleteLoadBalancer),
			awsapi.Op("CreateLoadBalancerListeners", f.createListeners),
			awsapi.Op("DeleteLoadBalancerListeners", f.deleteListeners),
			awsapi.Op("RegisterInstancesWithLoadBalancer", f.registerInstances).Reaching(),
			awsapi.Op("DeregisterInstancesFromLoadBalancer", f.deregisterInstances),
			awsapi.Op("AttachLoadBalancerToSubnets", f.attachSubnets),
			awsapi.Op("DetachLoadBalancerFromSubnets", f.detachSubnets),
			awsapi.Op("ApplySecurityGroupsToLoadBalancer", f.applySecurityGroups),
			awsapi.Op("ConfigureHealthCheck", f.configureHealthCheck),
			awsapi.Op("DescribeLoadBalancerAttributes", f.describeAttributes),
			awsapi.Op("ModifyLoadBalancerAttributes", f.modifyAttributes),
			awsapi.Op("AddTags", f.addTags),
			awsapi.Op("DescribeTags", f.describeTags),
			awsapi.Op("CreateLoadBalancerPolicy", f.createPolicy),
			awsapi.Op("DescribeLoadBalancerPolicies", f.describePolicies),
			awsapi.Op("SetLoadBalancerPoliciesOfListener", f.setListenerPolicies),
			awsapi.Op("SetLoadBalancerPoliciesForBackendServer", f.setBackendPolicies),
		},
	}
}
