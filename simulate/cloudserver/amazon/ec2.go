package amazon

import (
	"net/http"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// ec2Refusals are EC2's answers to the cloud's knobs ("Error codes for the
// Amazon EC2 API": UnauthorizedOperation, RequestLimitExceeded,
// Unavailable).
var ec2Refusals = awsapi.Refusals{
	Denied:      awsapi.Error{Status: http.StatusForbidden, Code: "UnauthorizedOperation", Message: "You are not authorized to perform this operation."},
	Throttled:   awsapi.Error{Status: http.StatusServiceUnavailable, Code: "RequestLimitExceeded", Message: "Request limit exceeded."},
	Unavailable: awsapi.Error{Status: http.StatusServiceUnavailable, Code: "Unavailable", Message: "The server is overloaded and can't handle the request."},
}

// ec2 is the EC2 API: the actions of the providers' EC2 interface that a
// cluster without volumes calls. The volume actions are not served: they
// answer InvalidAction, and are counted as unimplemented.
func (f *Face) ec2() awsapi.Service {
	return awsapi.Service{
		Name: "ec2", Protocol: awsapi.EC2Query, Namespace: "http://ec2.amazonaws.com/doc/2016-11-15/",
		Refusals: ec2Refusals,
		Actions: []awsapi.Action{
			awsapi.Op("DescribeInstances", f.describeInstances).Reaching(),
			awsapi.Op("ModifyInstanceAttribute", f.modifyInstanceAttribute).Reaching(),
			awsapi.Op("DescribeAvailabilityZones", f.describeAvailabilityZones),
			awsapi.Op("DescribeVpcs", f.describeVpcs),
			awsapi.Op("DescribeSubnets", f.describeSubnets),
			awsapi.Op("DescribeNetworkInterfaces", f.describeNetworkInterfaces).Reaching(),
			awsapi.Op("DescribeRouteTables", f.describeRouteTables),
			awsapi.Op("CreateRoute", f.createRoute),
			awsapi.Op("DeleteRoute", f.deleteRoute),
			awsapi.Op("CreateTags", f.createTags),
			awsapi.Op("DeleteTags", f.deleteTags),
			awsapi.Op("DescribeSecurityGroups", f.describeSecurityGroups),
			awsapi.Op("CreateSecurityGroup", f.createSecurityGroup),
			awsapi.Op("DeleteSecurityGroup", f.deleteSecurityGroup),
			awsapi.Op("AuthorizeSecurityGroupIngress", f.authorizeSecurityGroupIngress),
			awsapi.Op("RevokeSecurityGroupIngress", f.revokeSecurityGroupIngress),
		},
	}
}
