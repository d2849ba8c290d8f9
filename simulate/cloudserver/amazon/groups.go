package amazon

import (
	"context"
	"fmt"
	"reflect"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// Security groups: the nodes' own (tagged the cluster's, as the providers
// look for it) and those the load-balancer code creates, with the ingress
// rules it sets, which the providers read back and reconcile, and which
// filter the load balancers' traffic to the instances (firewall.go).

var groupFilters = []string{"group-id", "group-name", "vpc-id", "ip-permission.group-id"}

// groups are every security group, the nodes' first.
func (f *Face) groups() []*ec2.SecurityGroup {
	n := f.opts.Network
	nodes := &ec2.SecurityGroup{GroupId: aws.String(n.NodeGroup()), GroupName: aws.String(n.Cluster + "-nodes"),
		Description: aws.String("the cluster's nodes"), VpcId: aws.String(n.VPC()), OwnerId: aws.String(account)}
	out := []*ec2.SecurityGroup{nodes}
	f.state.Read(func(d *stateData) {
		if g, ok := d.Groups[n.NodeGroup()]; ok {
			nodes.IpPermissions = g.IpPermissions
		}
		nodes.Tags = ec2Tags(d.tagsOf(n.NodeGroup(), map[string]string{n.ClusterTag(): owned}))
		for _, id := range sortedKeys(d.Groups) {
			if id == n.NodeGroup() {
				continue
			}
			g := *d.Groups[id]
			g.Tags = ec2Tags(d.tagsOf(id, nil))
			out = append(out, &g)
		}
	})
	return out
}

func (f *Face) describeSecurityGroups(_ context.Context, _ awsapi.Call, in *ec2.DescribeSecurityGroupsInput) (*ec2.DescribeSecurityGroupsOutput, error) {
	out := &ec2.DescribeSecurityGroupsOutput{SecurityGroups: []*ec2.SecurityGroup{}}
	for _, g := range f.groups() {
		var pairs []string
		for _, p := range g.IpPermissions {
			for _, u := range p.UserIdGroupPairs {
				pairs = append(pairs, aws.StringValue(u.GroupId))
			}
		}
		a := attrs{"group-id": {*g.GroupId}, "group-name": {*g.GroupName}, "vpc-id": {*g.VpcId}, "ip-permission.group-id": pairs}
		ok, err := match(in.Filters, a, f.tagMap(g.Tags), groupFilters)
		if err != nil {
			return nil, err
		}
		if ok && (len(in.GroupIds) == 0 || contains(in.GroupIds, *g.GroupId)) && (len(in.GroupNames) == 0 || contains(in.GroupNames, *g.GroupName)) {
			out.SecurityGroups = append(out.SecurityGroups, g)
		}
	}
	return out, nil
}

func (f *Face) createSecurityGroup(_ context.Context, _ awsapi.Call, in *ec2.CreateSecurityGroupInput) (*ec2.CreateSecurityGroupOutput, error) {
	n := f.opts.Network
	name := aws.StringValue(in.GroupName)
	if name == "" || in.Description == nil {
		return nil, awsapi.Errorf("MissingParameter", "CreateSecurityGroup needs GroupName and Description")
	}
	if in.VpcId != nil && *in.VpcId != n.VPC() {
		return nil, awsapi.Errorf("InvalidVpcID.NotFound", "The vpc ID '%s' does not exist", *in.VpcId)
	}
	for _, g := range f.groups() {
		if *g.GroupName == name {
			return nil, awsapi.Errorf("InvalidGroup.Duplicate", "The security group '%s' already exists for VPC '%s'", name, n.VPC())
		}
	}
	var id string
	err := f.state.Change(func(d *stateData) error {
		d.Made++
		id = "sg-" + hexID(n.Cluster, fmt.Sprintf("sg/%d", d.Made), 17)
		d.Groups[id] = &ec2.SecurityGroup{GroupId: aws.String(id), GroupName: aws.String(name), Description: in.Description,
			VpcId: aws.String(n.VPC()), OwnerId: aws.String(account)}
		for _, spec := range in.TagSpecifications {
			for _, t := range spec.Tags {
				if d.Tags[id] == nil {
					d.Tags[id] = map[string]string{}
				}
				d.Tags[id][aws.StringValue(t.Key)] = aws.StringValue(t.Value)
			}
		}
		return nil
	})
	return &ec2.CreateSecurityGroupOutput{GroupId: aws.String(id)}, err
}

func errGroupNotFound(id string) *awsapi.Error {
	return awsapi.Errorf("InvalidGroup.NotFound", "The security group '%s' does not exist", id)
}

func (f *Face) deleteSecurityGroup(_ context.Context, _ awsapi.Call, in *ec2.DeleteSecurityGroupInput) (*ec2.DeleteSecurityGroupOutput, error) {
	id := aws.StringValue(in.GroupId)
	return &ec2.DeleteSecurityGroupOutput{}, f.state.Change(func(d *stateData) error {
		if _, ok := d.Groups[id]; !ok || id == f.opts.Network.NodeGroup() {
			return errGroupNotFound(id)
		}
		for other, g := range d.Groups {
			if other != id && refersTo(g, id) {
				return awsapi.Errorf("DependencyViolation", "resource %s has a dependent object", id)
			}
		}
		delete(d.Groups, id)
		delete(d.Tags, id)
		return nil
	})
}

func refersTo(g *ec2.SecurityGroup, id string) bool {
	for _, p := range g.IpPermissions {
		for _, u := range p.UserIdGroupPairs {
			if aws.StringValue(u.GroupId) == id {
				return true
			}
		}
	}
	return false
}

// group is a group the state can change: a created one, or the nodes'
// (whose rules the load-balancer code opens to its load balancers).
func (f *Face) group(d *stateData, id string) (*ec2.SecurityGroup, error) {
	if g, ok := d.Groups[id]; ok {
		return g, nil
	}
	if id == f.opts.Network.NodeGroup() {
		g := &ec2.SecurityGroup{GroupId: aws.String(id)}
		d.Groups[id] = g
		return g, nil
	}
	return nil, errGroupNotFound(id)
}

// authorizeSecurityGroupIngress adds rules; one already there is refused,
// as EC2 refuses it (the providers diff before they add).
func (f *Face) authorizeSecurityGroupIngress(ctx context.Context, _ awsapi.Call, in *ec2.AuthorizeSecurityGroupIngressInput) (*ec2.AuthorizeSecurityGroupIngressOutput, error) {
	out := &ec2.AuthorizeSecurityGroupIngressOutput{Return: aws.Bool(true)}
	return out, f.changeRules(ctx, func(d *stateData) error {
		g, err := f.group(d, aws.StringValue(in.GroupId))
		if err != nil {
			return err
		}
		for _, p := range in.IpPermissions {
			if indexOf(g.IpPermissions, p) >= 0 {
				return awsapi.Errorf("InvalidPermission.Duplicate", "the specified rule already exists in %s", *g.GroupId)
			}
		}
		g.IpPermissions = append(g.IpPermissions, in.IpPermissions...)
		return nil
	})
}

func (f *Face) revokeSecurityGroupIngress(ctx context.Context, _ awsapi.Call, in *ec2.RevokeSecurityGroupIngressInput) (*ec2.RevokeSecurityGroupIngressOutput, error) {
	out := &ec2.RevokeSecurityGroupIngressOutput{Return: aws.Bool(true)}
	return out, f.changeRules(ctx, func(d *stateData) error {
		g, err := f.group(d, aws.StringValue(in.GroupId))
		if err != nil {
			return err
		}
		for _, p := range in.IpPermissions {
			i := indexOf(g.IpPermissions, p)
			if i < 0 {
				return awsapi.Errorf("InvalidPermission.NotFound", "the specified rule does not exist in %s", *g.GroupId)
			}
			g.IpPermissions = append(g.IpPermissions[:i], g.IpPermissions[i+1:]...)
		}
		return nil
	})
}

// changeRules changes security groups' rules, then applies them to the
// load balancers' traffic.
func (f *Face) changeRules(ctx context.Context, change func(*stateData) error) error {
	if err := f.state.Change(change); err != nil {
		return err
	}
	f.refilter(ctx)
	return nil
}

func indexOf(perms []*ec2.IpPermission, p *ec2.IpPermission) int {
	for i, q := range perms {
		if reflect.DeepEqual(q, p) {
			return i
		}
	}
	return -1
}
