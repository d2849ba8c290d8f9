package amazon_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	"github.com/aws/aws-sdk-go/service/ec2"
	"github.com/aws/aws-sdk-go/service/elb"

	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon/iampolicy"
)

// A policy written before cloud-provider-aws v1.27 began calling
// ec2:DescribeAvailabilityZones: every other EC2 and ELB action the
// providers call, and no route changes.
const oldPolicy = `{"Version":"2012-10-17","Statement":[
  {"Effect":"Allow","Action":["ec2:DescribeInstances","ec2:DescribeSubnets","ec2:CreateRoute","elasticloadbalancing:*"],"Resource":"*"},
  {"Sid":"NoRouteChanges","Effect":"Deny","Action":"ec2:CreateRoute","Resource":"*"}]}`

// A caller's IAM policy decides its calls: what it does not allow is
// refused with the service's code, naming the action and why, before
// anything else; a call it allows (one reaching the cloud among them)
// runs; a caller without a policy is not held to another's; the cloud's
// audit and the call log hold the refusal with the fault "iam".
func TestPoliciesDecideTheCallersCalls(t *testing.T) {
	p, err := iampolicy.Parse([]byte(oldPolicy))
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, t.TempDir(), func(o *amazon.Options) { o.Policies = map[string]iampolicy.Policy{ccm.Principal: p} })
	since := time.Now()
	_, err = r.ec2(ccm).DescribeAvailabilityZones(&ec2.DescribeAvailabilityZonesInput{})
	var ae awserr.RequestFailure
	if !errors.As(err, &ae) || ae.Code() != "UnauthorizedOperation" || ae.StatusCode() != 403 ||
		!strings.Contains(ae.Message(), "is not authorized to perform: ec2:DescribeAvailabilityZones because no identity-based policy allows the ec2:DescribeAvailabilityZones action") {
		t.Errorf("a call the policy does not allow: %v", err)
	}
	if _, err := r.ec2(ccm).CreateRoute(&ec2.CreateRouteInput{RouteTableId: aws.String("rtb-1"), DestinationCidrBlock: aws.String("10.244.1.0/24"), InstanceId: aws.String("i-1")}); code(t, err) != "UnauthorizedOperation" || !strings.Contains(err.Error(), "explicit deny") {
		t.Errorf("a call the policy denies: %v", err)
	}
	if _, err := r.ec2(ccm).DescribeInstances(&ec2.DescribeInstancesInput{}); err != nil {
		t.Errorf("a call the policy allows: %v", err)
	}
	if _, err := r.elb(ccm).DescribeLoadBalancers(&elb.DescribeLoadBalancersInput{}); err != nil {
		t.Errorf("a call a wildcard allows: %v", err)
	}
	if _, err := r.ec2(kcm).DescribeAvailabilityZones(&ec2.DescribeAvailabilityZonesInput{}); err != nil {
		t.Errorf("a caller without a policy: %v", err)
	}
	audit, err := r.admin().Audit(context.Background(), since)
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]bool{}
	for _, e := range audit {
		if e.Fault == amazon.FaultIAM && e.Status == 403 && e.Component == ccm.Principal {
			refused[e.Operation] = true
		}
	}
	if !refused["ec2:DescribeAvailabilityZones"] || !refused["ec2:CreateRoute"] || len(refused) != 2 {
		t.Errorf("the cloud's audit holds the refusals %v", refused)
	}
	logged := 0
	for _, rec := range r.calls() {
		if rec.Fault == amazon.FaultIAM && rec.Status == 403 {
			logged++
		}
	}
	if logged != 2 {
		t.Errorf("the call log holds %d refusals by the policy, want 2", logged)
	}
}
