package iampolicy

import (
	"strings"
	"testing"
)

// A control-plane policy of the documented shape (one statement, its
// actions listed, on every resource; cloud-provider-aws's
// docs/prerequisites.md), written before ec2:DescribeAvailabilityZones was
// among them and cut short.
const controlPlane = `{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Action": [
        "autoscaling:DescribeAutoScalingGroups",
        "ec2:DescribeInstances",
        "ec2:DescribeRegions",
        "ec2:DescribeRouteTables",
        "ec2:DescribeSecurityGroups",
        "ec2:DescribeSubnets",
        "ec2:DescribeVolumes",
        "ec2:CreateSecurityGroup",
        "ec2:CreateTags",
        "ec2:ModifyInstanceAttribute",
        "ec2:AuthorizeSecurityGroupIngress",
        "ec2:CreateRoute",
        "ec2:DeleteRoute",
        "ec2:DeleteSecurityGroup",
        "ec2:RevokeSecurityGroupIngress",
        "elasticloadbalancing:*"
      ],
      "Resource": ["*"]
    }
  ]
}`

func TestDecide(t *testing.T) {
	p, err := Parse([]byte(controlPlane))
	if err != nil {
		t.Fatal(err)
	}
	for action, allowed := range map[string]bool{
		"ec2:DescribeInstances":                        true,
		"EC2:describeinstances":                        true, // actions match whatever their case
		"elasticloadbalancing:CreateLoadBalancer":      true,
		"ec2:DescribeAvailabilityZones":                false, // the one cloud-provider-aws v1.27 newly calls
		"ecr:GetAuthorizationToken":                    false,
		"elasticloadbalancingv2:DescribeLoadBalancers": false,
		"ec2:DescribeInstancesX":                       false,
	} {
		if d := p.Decide(action); d.Allowed != allowed || d.Explicit {
			t.Errorf("%s: %+v, want allowed %t", action, d, allowed)
		}
	}
	if got := p.Approximated(); len(got) != 0 {
		t.Errorf("approximated: %v", got)
	}
}

// A Deny wins over an Allow; NotAction allows all but its actions; a
// statement naming resources or conditions allows nothing and, a Deny,
// denies outright.
func TestDenyNotActionAndApproximations(t *testing.T) {
	p, err := Parse([]byte(`{"Version":"2012-10-17","Statement":[
		{"Sid":"All","Effect":"Allow","NotAction":"iam:*","Resource":"*"},
		{"Sid":"NoRoutes","Effect":"Deny","Action":["ec2:CreateRoute","ec2:DeleteRoute"],"Resource":"*"},
		{"Sid":"Tagged","Effect":"Allow","Action":"iam:PassRole","Resource":"arn:aws:iam::1:role/x"},
		{"Sid":"OnlyTls","Effect":"Deny","Action":"ecr:*","Resource":"*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for action, want := range map[string]Decision{
		"ec2:DescribeInstances":     {Allowed: true, By: "All"},
		"ec2:CreateRoute":           {Explicit: true, By: "NoRoutes"},
		"iam:PassRole":              {},
		"ecr:GetAuthorizationToken": {Explicit: true, By: "OnlyTls"},
	} {
		if d := p.Decide(action); d != want {
			t.Errorf("%s: %+v, want %+v", action, d, want)
		}
	}
	if got := strings.Join(p.Approximated(), ","); got != "Tagged,OnlyTls" {
		t.Errorf("approximated: %s", got)
	}
}

// What IAM refuses as a document is refused, saying where.
func TestMalformedPoliciesAreRefused(t *testing.T) {
	for _, bad := range []string{
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:*","Resource":"*","Principal":"*"}]}`,
		`{"Version":"2012-10-17","Statement":[{"Effect":"Permit","Action":"ec2:*","Resource":"*"}]}`,
		`{"Version":"2012-10-17","Statement":[{"effect":"Allow","Action":"ec2:*","Resource":"*"}]}`,
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"ec2:*"}]}`,
		`{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"DescribeInstances","Resource":"*"}]}`,
		`{"Version":"2012-10-17","Statement":[]}`,
		`{"Version":"2020-01-01","Statement":{"Effect":"Allow","Action":"*","Resource":"*"}}`,
		`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"*","Resource":"*"}} {}`,
		strings.Repeat(" ", MaxSize+1),
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("accepted: %.80s", bad)
		}
	}
	if _, err := Parse([]byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"*","Resource":"*"}}`)); err != nil {
		t.Errorf("one statement, not a list: %v", err)
	}
}
