package amazon_test

import (
	"testing"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
)

// The load-balancer code's security-group calls: create a group for a
// load balancer, tag it, open ports, find it by name and tag, open the
// nodes' group to it, and delete it.
func TestSecurityGroupsAsTheLoadBalancerCodeUsesThem(t *testing.T) {
	r := newRig(t, t.TempDir())
	c := r.ec2(ccm)
	vpc := amazon.Network{Cluster: cluster}.VPC()
	made, err := c.CreateSecurityGroup(&ec2.CreateSecurityGroupInput{GroupName: aws.String("k8s-elb-a1b2"), Description: aws.String("Security group for Kubernetes ELB a1b2"), VpcId: aws.String(vpc)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateSecurityGroup(&ec2.CreateSecurityGroupInput{GroupName: aws.String("k8s-elb-a1b2"), Description: aws.String("again"), VpcId: aws.String(vpc)}); code(t, err) != "InvalidGroup.Duplicate" {
		t.Errorf("the same name twice: %v", err)
	}
	if _, err := c.CreateTags(&ec2.CreateTagsInput{Resources: []*string{made.GroupId}, Tags: []*ec2.Tag{{Key: aws.String("kubernetes.io/cluster/" + cluster), Value: aws.String("owned")}}}); err != nil {
		t.Fatal(err)
	}
	http := &ec2.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int64(80), ToPort: aws.Int64(80), IpRanges: []*ec2.IpRange{{CidrIp: aws.String("0.0.0.0/0")}}}
	if _, err := c.AuthorizeSecurityGroupIngress(&ec2.AuthorizeSecurityGroupIngressInput{GroupId: made.GroupId, IpPermissions: []*ec2.IpPermission{http}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AuthorizeSecurityGroupIngress(&ec2.AuthorizeSecurityGroupIngressInput{GroupId: made.GroupId, IpPermissions: []*ec2.IpPermission{http}}); code(t, err) != "InvalidPermission.Duplicate" {
		t.Errorf("the same rule twice: %v", err)
	}
	nodes := amazon.Network{Cluster: cluster}.NodeGroup()
	fromLB := &ec2.IpPermission{IpProtocol: aws.String("-1"), UserIdGroupPairs: []*ec2.UserIdGroupPair{{GroupId: made.GroupId}}}
	if _, err := c.AuthorizeSecurityGroupIngress(&ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(nodes), IpPermissions: []*ec2.IpPermission{fromLB}}); err != nil {
		t.Fatal(err)
	}
	found, err := c.DescribeSecurityGroups(&ec2.DescribeSecurityGroupsInput{Filters: []*ec2.Filter{
		{Name: aws.String("group-name"), Values: aws.StringSlice([]string{"k8s-elb-a1b2"})},
		{Name: aws.String("vpc-id"), Values: aws.StringSlice([]string{vpc})},
		{Name: aws.String("tag:kubernetes.io/cluster/" + cluster), Values: aws.StringSlice([]string{"owned"})},
	}})
	if err != nil || len(found.SecurityGroups) != 1 || len(found.SecurityGroups[0].IpPermissions) != 1 {
		t.Fatalf("the group by name and tag: %v, %v", found, err)
	}
	referring, err := c.DescribeSecurityGroups(&ec2.DescribeSecurityGroupsInput{Filters: []*ec2.Filter{{Name: aws.String("ip-permission.group-id"), Values: []*string{made.GroupId}}}})
	if err != nil || len(referring.SecurityGroups) != 1 || *referring.SecurityGroups[0].GroupId != nodes {
		t.Fatalf("groups that let it in: %v, %v", referring, err)
	}
	if _, err := c.DeleteSecurityGroup(&ec2.DeleteSecurityGroupInput{GroupId: made.GroupId}); code(t, err) != "DependencyViolation" {
		t.Errorf("deleting a group another refers to: %v", err)
	}
	if _, err := c.RevokeSecurityGroupIngress(&ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(nodes), IpPermissions: []*ec2.IpPermission{fromLB}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteSecurityGroup(&ec2.DeleteSecurityGroupInput{GroupId: made.GroupId}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteSecurityGroup(&ec2.DeleteSecurityGroupInput{GroupId: made.GroupId}); code(t, err) != "InvalidGroup.NotFound" {
		t.Errorf("deleting it again: %v", err)
	}
}

// The tagging controller's calls: tags added to an instance show on it;
// removed, they go (its own cluster tag too).
func TestTagsOnInstances(t *testing.T) {
	r := newRig(t, t.TempDir())
	c := r.ec2(ccm)
	worker := amazon.InstanceID(cluster, "c-worker")
	tags := func() map[string]string {
		out, err := c.DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{worker})})
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for _, tg := range out.Reservations[0].Instances[0].Tags {
			m[*tg.Key] = *tg.Value
		}
		return m
	}
	if _, err := c.CreateTags(&ec2.CreateTagsInput{Resources: aws.StringSlice([]string{worker}), Tags: []*ec2.Tag{{Key: aws.String("team"), Value: aws.String("platform")}}}); err != nil {
		t.Fatal(err)
	}
	if got := tags(); got["team"] != "platform" || got["kubernetes.io/cluster/"+cluster] != "owned" || got["Name"] != "c-worker" {
		t.Errorf("tags: %v", got)
	}
	if _, err := c.DeleteTags(&ec2.DeleteTagsInput{Resources: aws.StringSlice([]string{worker}), Tags: []*ec2.Tag{{Key: aws.String("team")}, {Key: aws.String("kubernetes.io/cluster/" + cluster)}}}); err != nil {
		t.Fatal(err)
	}
	if got := tags(); len(got) != 1 || got["Name"] != "c-worker" {
		t.Errorf("after DeleteTags: %v", got)
	}
}
