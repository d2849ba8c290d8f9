package amazon

import (
	"context"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// The cluster's network as EC2 describes it. Every node container sits on
// one Docker network, so the VPC has its CIDR and each zone's subnet has it
// too: the providers pick subnets by zone and tag, never by range.

func (f *Face) describeAvailabilityZones(_ context.Context, _ awsapi.Call, in *ec2.DescribeAvailabilityZonesInput) (*ec2.DescribeAvailabilityZonesOutput, error) {
	n := f.opts.Network
	out := &ec2.DescribeAvailabilityZonesOutput{AvailabilityZones: []*ec2.AvailabilityZone{}}
	for i, z := range n.Zones {
		id := n.Region + "-az" + string(rune('1'+i))
		a := attrs{"zone-name": {z}, "zone-id": {id}, "region-name": {n.Region}, "state": {"available"}}
		ok, err := match(in.Filters, a, nil, []string{"zone-name", "zone-id", "region-name", "state"})
		if err != nil {
			return nil, err
		}
		if ok && (len(in.ZoneNames) == 0 || contains(in.ZoneNames, z)) {
			out.AvailabilityZones = append(out.AvailabilityZones, &ec2.AvailabilityZone{ZoneName: aws.String(z), ZoneId: aws.String(id),
				RegionName: aws.String(n.Region), State: aws.String("available"), ZoneType: aws.String("availability-zone")})
		}
	}
	return out, nil
}

func contains(list []*string, s string) bool {
	for _, x := range list {
		if aws.StringValue(x) == s {
			return true
		}
	}
	return false
}

func (f *Face) describeVpcs(_ context.Context, _ awsapi.Call, in *ec2.DescribeVpcsInput) (*ec2.DescribeVpcsOutput, error) {
	n := f.opts.Network
	tags := f.tagsOf(n.VPC(), map[string]string{n.ClusterTag(): owned})
	ok, err := match(in.Filters, attrs{"vpc-id": {n.VPC()}, "cidr": {n.CIDR}, "state": {"available"}}, tags, []string{"vpc-id", "cidr", "state"})
	out := &ec2.DescribeVpcsOutput{Vpcs: []*ec2.Vpc{}}
	if err != nil || !ok || (len(in.VpcIds) > 0 && !contains(in.VpcIds, n.VPC())) {
		return out, err
	}
	out.Vpcs = append(out.Vpcs, &ec2.Vpc{VpcId: aws.String(n.VPC()), CidrBlock: aws.String(n.CIDR), State: aws.String("available"),
		IsDefault: aws.Bool(false), OwnerId: aws.String(account), Tags: ec2Tags(tags)})
	return out, nil
}

// subnetTags mark every subnet the cluster's and open to both kinds of
// load balancer (the role tags the providers' findELBSubnets prefer).
func (f *Face) subnetTags(id string) map[string]string {
	return f.tagsOf(id, map[string]string{f.opts.Network.ClusterTag(): owned, "kubernetes.io/role/elb": "1", "kubernetes.io/role/internal-elb": "1"})
}

func (f *Face) describeSubnets(_ context.Context, _ awsapi.Call, in *ec2.DescribeSubnetsInput) (*ec2.DescribeSubnetsOutput, error) {
	n := f.opts.Network
	out := &ec2.DescribeSubnetsOutput{Subnets: []*ec2.Subnet{}}
	for _, z := range n.Zones {
		id, tags := n.Subnet(z), f.subnetTags(n.Subnet(z))
		a := attrs{"subnet-id": {id}, "vpc-id": {n.VPC()}, "availability-zone": {z}, "cidr-block": {n.CIDR}, "state": {"available"}}
		ok, err := match(in.Filters, a, tags, []string{"subnet-id", "vpc-id", "availability-zone", "cidr-block", "state"})
		if err != nil {
			return nil, err
		}
		if ok && (len(in.SubnetIds) == 0 || contains(in.SubnetIds, id)) {
			out.Subnets = append(out.Subnets, &ec2.Subnet{SubnetId: aws.String(id), VpcId: aws.String(n.VPC()), AvailabilityZone: aws.String(z),
				CidrBlock: aws.String(n.CIDR), State: aws.String("available"), MapPublicIpOnLaunch: aws.Bool(false), Tags: ec2Tags(tags)})
		}
	}
	return out, nil
}

var interfaceFilters = []string{"network-interface-id", "attachment.instance-id", "attachment.status", "private-ip-address",
	"private-dns-name", "vpc-id", "subnet-id", "availability-zone", "status"}

func (f *Face) describeNetworkInterfaces(ctx context.Context, c awsapi.Call, in *ec2.DescribeNetworkInterfacesInput) (*ec2.DescribeNetworkInterfacesOutput, error) {
	all, err := f.instances(ctx, c)
	if err != nil {
		return nil, err
	}
	out := &ec2.DescribeNetworkInterfacesOutput{NetworkInterfaces: []*ec2.NetworkInterface{}}
	for _, inst := range all {
		e := f.ec2Instance(inst)
		for _, ni := range e.NetworkInterfaces {
			a := attrs{"network-interface-id": {*ni.NetworkInterfaceId}, "attachment.instance-id": {*e.InstanceId},
				"attachment.status": {*ni.Attachment.Status}, "private-ip-address": {*ni.PrivateIpAddress}, "private-dns-name": {*ni.PrivateDnsName},
				"vpc-id": {*ni.VpcId}, "subnet-id": {*ni.SubnetId}, "availability-zone": {inst.Zone}, "status": {*ni.Status}}
			ok, err := match(in.Filters, a, nil, interfaceFilters)
			if err != nil {
				return nil, err
			}
			if !ok || (len(in.NetworkInterfaceIds) > 0 && !contains(in.NetworkInterfaceIds, *ni.NetworkInterfaceId)) {
				continue
			}
			out.NetworkInterfaces = append(out.NetworkInterfaces, networkInterface(e, ni, inst.Zone))
		}
	}
	return out, nil
}

// networkInterface is an instance's interface as DescribeNetworkInterfaces
// gives it.
func networkInterface(e *ec2.Instance, ni *ec2.InstanceNetworkInterface, zone string) *ec2.NetworkInterface {
	var addrs []*ec2.NetworkInterfacePrivateIpAddress
	for _, p := range ni.PrivateIpAddresses {
		addrs = append(addrs, &ec2.NetworkInterfacePrivateIpAddress{Primary: p.Primary, PrivateIpAddress: p.PrivateIpAddress, PrivateDnsName: p.PrivateDnsName})
	}
	return &ec2.NetworkInterface{NetworkInterfaceId: ni.NetworkInterfaceId,
		Status: ni.Status, MacAddress: ni.MacAddress, PrivateIpAddress: ni.PrivateIpAddress, PrivateDnsName: ni.PrivateDnsName,
		PrivateIpAddresses: addrs, SubnetId: ni.SubnetId, VpcId: ni.VpcId, AvailabilityZone: aws.String(zone),
		InterfaceType: aws.String("interface"), SourceDestCheck: ni.SourceDestCheck,
		Attachment: &ec2.NetworkInterfaceAttachment{InstanceId: e.InstanceId, DeviceIndex: ni.Attachment.DeviceIndex, Status: ni.Attachment.Status}}
}

// tagsOf is a resource's tags: its own and those added since.
func (f *Face) tagsOf(id string, own map[string]string) map[string]string {
	var out map[string]string
	f.state.Read(func(d *stateData) { out = d.tagsOf(id, own) })
	return out
}
