package amazon_test

import (
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"
	"github.com/aws/aws-sdk-go/service/elb"

	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
)

// The nodes' security group filters what a classic load balancer sends
// them, as the providers' calls leave it: nothing reaches the instances
// before the rule from the load balancer's own group (the one
// updateInstanceSecurityGroupsForLoadBalancer writes), everything after,
// nothing again once it is revoked; a TCP rule lets in only its ports
// (the health check's included), an address range only when it holds the
// whole VPC.
func TestSecurityGroupsFilterTheLoadBalancersTraffic(t *testing.T) {
	r := newRig(t, t.TempDir())
	e, c := r.ec2(ccm), r.elb(ccm)
	n := amazon.Network{Cluster: cluster}
	sg, err := e.CreateSecurityGroup(&ec2.CreateSecurityGroupInput{GroupName: aws.String("k8s-elb-a01"), Description: aws.String("Security group for Kubernetes ELB a01 (load/web)")})
	if err != nil {
		t.Fatal(err)
	}
	name := "a01"
	if _, err := c.CreateLoadBalancer(&elb.CreateLoadBalancerInput{LoadBalancerName: aws.String(name), SecurityGroups: []*string{sg.GroupId},
		Listeners: []*elb.Listener{{Protocol: aws.String("TCP"), LoadBalancerPort: aws.Int64(80), InstanceProtocol: aws.String("TCP"), InstancePort: aws.Int64(30080)}},
		Subnets:   aws.StringSlice([]string{n.Subnet(region + "a")})}); err != nil {
		t.Fatal(err)
	}
	ids := []*elb.Instance{{InstanceId: aws.String(amazon.InstanceID(cluster, "c-control-plane"))}, {InstanceId: aws.String(amazon.InstanceID(cluster, "c-worker"))}}
	if _, err := c.RegisterInstancesWithLoadBalancer(&elb.RegisterInstancesWithLoadBalancerInput{LoadBalancerName: aws.String(name), Instances: ids}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ConfigureHealthCheck(&elb.ConfigureHealthCheckInput{LoadBalancerName: aws.String(name), HealthCheck: &elb.HealthCheck{
		Target: aws.String("HTTP:32000/healthz"), Interval: aws.Int64(10), Timeout: aws.Int64(5), HealthyThreshold: aws.Int64(2), UnhealthyThreshold: aws.Int64(6)}}); err != nil {
		t.Fatal(err)
	}
	all := []string{"172.18.0.2:30080", "172.18.0.2:32000", "172.18.0.3:30080", "172.18.0.3:32000"}
	dropped := func(when string, want []string) {
		t.Helper()
		if got := r.cloudLB(t, name).Spec.Dropped; !slices.Equal(got, want) {
			t.Errorf("%s: dropped %v, want %v", when, got, want)
		}
	}
	dropped("before any rule", all)

	fromLB := []*ec2.IpPermission{{IpProtocol: aws.String("-1"), UserIdGroupPairs: []*ec2.UserIdGroupPair{{GroupId: sg.GroupId}}}}
	rule := func(perms []*ec2.IpPermission, add bool) {
		t.Helper()
		var err error
		if add {
			_, err = e.AuthorizeSecurityGroupIngress(&ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(n.NodeGroup()), IpPermissions: perms})
		} else {
			_, err = e.RevokeSecurityGroupIngress(&ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(n.NodeGroup()), IpPermissions: perms})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	rule(fromLB, true)
	dropped("with the providers' rule from its group", nil)
	rule(fromLB, false)
	dropped("the rule revoked", all)

	tcp := func(from, to int64, cidr string) []*ec2.IpPermission {
		return []*ec2.IpPermission{{IpProtocol: aws.String("tcp"), FromPort: aws.Int64(from), ToPort: aws.Int64(to), IpRanges: []*ec2.IpRange{{CidrIp: aws.String(cidr)}}}}
	}
	rule(tcp(30000, 30999, "172.18.0.0/16"), true)
	dropped("the VPC let in on the node ports only", []string{"172.18.0.2:32000", "172.18.0.3:32000"})
	rule(tcp(32000, 32000, "172.18.0.0/24"), true)
	dropped("the health check's port from part of the VPC only", []string{"172.18.0.2:32000", "172.18.0.3:32000"})
	rule(tcp(32000, 32000, "0.0.0.0/0"), true)
	dropped("and from everywhere", nil)

	other, err := e.CreateSecurityGroup(&ec2.CreateSecurityGroupInput{GroupName: aws.String("elsewhere"), Description: aws.String("another group")})
	if err != nil {
		t.Fatal(err)
	}
	rule(tcp(30000, 30999, "172.18.0.0/16"), false)
	rule([]*ec2.IpPermission{{IpProtocol: aws.String("-1"), UserIdGroupPairs: []*ec2.UserIdGroupPair{{GroupId: other.GroupId}}}}, true)
	dropped("the nodes letting in another group", []string{"172.18.0.2:30080", "172.18.0.3:30080"})
	if _, err := c.ApplySecurityGroupsToLoadBalancer(&elb.ApplySecurityGroupsToLoadBalancerInput{LoadBalancerName: aws.String(name), SecurityGroups: []*string{other.GroupId}}); err != nil {
		t.Fatal(err)
	}
	dropped("the load balancer moved to that group", nil)
}
