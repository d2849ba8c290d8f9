package amazon

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// instanceFilters are the instance filters the providers use.
var instanceFilters = []string{"instance-id", "instance-state-name", "private-dns-name", "private-ip-address",
	"vpc-id", "subnet-id", "availability-zone", "instance-type"}

// EC2's instance state codes.
var stateCode = map[string]int64{api.StateRunning: 16, api.StateStopped: 80, api.StateTerminated: 48}

// instances lists the cloud's instances as the caller's credentials see
// them.
func (f *Face) instances(ctx context.Context, c awsapi.Call) ([]api.Instance, error) {
	all, err := f.cloud(c).Instances(ctx, controller(c))
	if err != nil {
		return nil, refusal(err, ec2Refusals, nil)
	}
	return all, nil
}

// byID finds the instance with an EC2 ID, or says it does not exist.
func (f *Face) byID(ctx context.Context, c awsapi.Call, id string) (api.Instance, error) {
	all, err := f.instances(ctx, c)
	if err != nil {
		return api.Instance{}, err
	}
	for _, in := range all {
		if InstanceID(f.opts.Network.Cluster, in.Name) == id {
			return in, nil
		}
	}
	return api.Instance{}, errInstanceNotFound(id)
}

func errInstanceNotFound(id string) *awsapi.Error {
	return awsapi.Errorf("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", id)
}

// terminatedVisible is how long EC2 still describes a terminated
// instance ("terminated instances remain visible ... for approximately
// one hour", EC2's user guide on instance lifecycle).
const terminatedVisible = time.Hour

// describable are the instances EC2 describes: the cloud's, and those
// gone from it within terminatedVisible, as terminated. The providers
// depend on it: a route table's route to a terminated instance must still
// find the instance (cloud-provider-aws's ListRoutes fails whole on
// InvalidInstanceID.NotFound), and a lifecycle check must read its state.
func (f *Face) describable(ctx context.Context, c awsapi.Call) ([]api.Instance, error) {
	live, err := f.instances(ctx, c)
	if err != nil {
		return nil, err
	}
	now := f.opts.Now()
	names := map[string]bool{}
	for _, in := range live {
		names[in.Name] = true
	}
	var changed bool
	var gone []api.Instance
	f.state.Read(func(d *stateData) {
		for _, in := range live {
			if s, ok := d.Seen[in.Name]; !ok || !s.Gone.IsZero() || s.Zone != in.Zone {
				changed = true
			}
		}
		for name, s := range d.Seen {
			if !names[name] && (s.Gone.IsZero() || now.Sub(s.Gone) < terminatedVisible) {
				gone = append(gone, api.Instance{Name: name, Zone: s.Zone, Type: s.Type, State: api.StateTerminated})
				changed = changed || s.Gone.IsZero()
			}
		}
	})
	if changed {
		err := f.state.Change(func(d *stateData) error {
			for _, in := range live {
				d.Seen[in.Name] = seenInstance{Zone: in.Zone, Type: in.Type}
			}
			for name, s := range d.Seen {
				if !names[name] && s.Gone.IsZero() {
					s.Gone = now
					d.Seen[name] = s
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(gone, func(a, b api.Instance) int { return strings.Compare(a.Name, b.Name) })
	return append(live, gone...), nil
}

func (f *Face) describeInstances(ctx context.Context, c awsapi.Call, in *ec2.DescribeInstancesInput) (*ec2.DescribeInstancesOutput, error) {
	all, err := f.describable(ctx, c)
	if err != nil {
		return nil, err
	}
	wanted := aws.StringValueSlice(in.InstanceIds)
	var out []*ec2.Instance
	found := map[string]bool{}
	for _, inst := range all {
		e := f.ec2Instance(inst)
		id := aws.StringValue(e.InstanceId)
		if len(wanted) > 0 && !slices.Contains(wanted, id) {
			continue
		}
		found[id] = true
		ok, err := match(in.Filters, f.instanceAttrs(e), f.tagMap(e.Tags), instanceFilters)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, e)
		}
	}
	for _, id := range wanted {
		if !found[id] {
			return nil, errInstanceNotFound(id)
		}
	}
	res := &ec2.DescribeInstancesOutput{Reservations: []*ec2.Reservation{}}
	for _, e := range out {
		res.Reservations = append(res.Reservations, &ec2.Reservation{ReservationId: aws.String("r-" + (*e.InstanceId)[2:]),
			OwnerId: aws.String(account), Instances: []*ec2.Instance{e}})
	}
	return res, nil
}

// account is the simulated account's ID.
const account = "000000000000"

// ec2Instance is an instance as EC2 describes it: what the providers read
// (ID, addresses and DNS name, the in-use interface's private addresses,
// zone, type, state, VPC and subnet, security groups, tags, source/dest
// check).
func (f *Face) ec2Instance(in api.Instance) *ec2.Instance {
	n := f.opts.Network
	id, ip := InstanceID(n.Cluster, in.Name), internalIP(in)
	if in.State == api.StateTerminated {
		return f.terminatedInstance(in)
	}
	dns := PrivateDNSName(ip, n.Region)
	groups := []*ec2.GroupIdentifier{{GroupId: aws.String(n.NodeGroup()), GroupName: aws.String(n.Cluster + "-nodes")}}
	var tags map[string]string
	check := true
	f.state.Read(func(d *stateData) {
		tags = d.tagsOf(id, map[string]string{n.ClusterTag(): owned, "Name": in.Name})
		check = !d.NoSourceDestCheck[id]
	})
	return &ec2.Instance{
		InstanceId: aws.String(id), InstanceType: aws.String(in.Type), ImageId: aws.String("ami-" + hexID(n.Cluster, "ami", 17)),
		State:            &ec2.InstanceState{Name: aws.String(in.State), Code: aws.Int64(stateCode[in.State])},
		Placement:        &ec2.Placement{AvailabilityZone: aws.String(in.Zone)},
		PrivateIpAddress: aws.String(ip), PrivateDnsName: aws.String(dns),
		VpcId: aws.String(n.VPC()), SubnetId: aws.String(n.Subnet(in.Zone)), SourceDestCheck: aws.Bool(check),
		SecurityGroups: groups, Tags: ec2Tags(tags),
		NetworkInterfaces: f.interfaces(in, groups, check),
	}
}

// interfaces are an instance's network interfaces as EC2 describes them:
// one per InternalIP (a node container's networks: its own first, at
// device index 0), listed most recently attached first. EC2 documents no
// order for them; this one is what kubernetes/cloud-provider-aws#911
// shows DescribeInstances answering (device index 1 before 0), the order
// that release of the provider took the first InternalIP from.
func (f *Face) interfaces(in api.Instance, groups []*ec2.GroupIdentifier, check bool) []*ec2.InstanceNetworkInterface {
	n := f.opts.Network
	var out []*ec2.InstanceNetworkInterface
	for i, ip := range internalIPs(in) {
		dns := PrivateDNSName(ip, n.Region)
		out = append(out, &ec2.InstanceNetworkInterface{
			NetworkInterfaceId: aws.String(n.Interface(interfaceName(in.Name, i))), Status: aws.String(ec2.NetworkInterfaceStatusInUse),
			MacAddress: aws.String(MAC(ip)), PrivateIpAddress: aws.String(ip), PrivateDnsName: aws.String(dns),
			SubnetId: aws.String(n.Subnet(in.Zone)), VpcId: aws.String(n.VPC()), Groups: groups, SourceDestCheck: aws.Bool(check),
			Attachment:         &ec2.InstanceNetworkInterfaceAttachment{DeviceIndex: aws.Int64(int64(i)), Status: aws.String(ec2.AttachmentStatusAttached)},
			PrivateIpAddresses: []*ec2.InstancePrivateIpAddress{{Primary: aws.Bool(true), PrivateIpAddress: aws.String(ip), PrivateDnsName: aws.String(dns)}},
		})
	}
	slices.Reverse(out)
	return out
}

// oneInterface refuses what EC2 does by instance ID only for an instance
// with one network interface: a route to it (CreateRoute's InstanceId) and
// its source/dest check. With more, EC2 answers as kubernetes/kubernetes#70924
// and #92783 quote it, and the aws providers, which name instances only,
// cannot route to such a node.
func oneInterface(in api.Instance, id string) error {
	if len(internalIPs(in)) > 1 {
		return awsapi.Errorf("InvalidInstanceID", "There are multiple interfaces attached to instance '%s'. Please specify an interface ID for the operation instead.", id)
	}
	return nil
}

// interfaceName names an instance's interface by device index: the
// primary keeps the instance's name, so its ID is what it always was.
func interfaceName(instance string, device int) string {
	if device == 0 {
		return instance
	}
	return instance + "/" + strconv.Itoa(device)
}

// terminatedInstance is a terminated instance as EC2 describes it: its ID,
// type, zone, state and tags; no address, DNS name, interface, VPC or
// subnet any more.
func (f *Face) terminatedInstance(in api.Instance) *ec2.Instance {
	n := f.opts.Network
	id := InstanceID(n.Cluster, in.Name)
	var tags map[string]string
	f.state.Read(func(d *stateData) { tags = d.tagsOf(id, map[string]string{n.ClusterTag(): owned, "Name": in.Name}) })
	return &ec2.Instance{
		InstanceId: aws.String(id), InstanceType: aws.String(in.Type), ImageId: aws.String("ami-" + hexID(n.Cluster, "ami", 17)),
		State:          &ec2.InstanceState{Name: aws.String(api.StateTerminated), Code: aws.Int64(stateCode[api.StateTerminated])},
		Placement:      &ec2.Placement{AvailabilityZone: aws.String(in.Zone)},
		PrivateDnsName: aws.String(""), StateTransitionReason: aws.String("User initiated"),
		Tags: ec2Tags(tags),
	}
}

func (f *Face) instanceAttrs(e *ec2.Instance) attrs {
	return attrs{
		"instance-id": {aws.StringValue(e.InstanceId)}, "instance-state-name": {aws.StringValue(e.State.Name)},
		"private-dns-name": {aws.StringValue(e.PrivateDnsName)}, "private-ip-address": {aws.StringValue(e.PrivateIpAddress)},
		"vpc-id": {aws.StringValue(e.VpcId)}, "subnet-id": {aws.StringValue(e.SubnetId)},
		"availability-zone": {aws.StringValue(e.Placement.AvailabilityZone)}, "instance-type": {aws.StringValue(e.InstanceType)},
	}
}

func (f *Face) tagMap(tags []*ec2.Tag) map[string]string {
	out := map[string]string{}
	for _, t := range tags {
		out[aws.StringValue(t.Key)] = aws.StringValue(t.Value)
	}
	return out
}

// modifyInstanceAttribute sets what the providers set: the source/dest
// check (the route controller turns it off for an instance it routes a
// pod range to).
func (f *Face) modifyInstanceAttribute(ctx context.Context, c awsapi.Call, in *ec2.ModifyInstanceAttributeInput) (*ec2.ModifyInstanceAttributeOutput, error) {
	id := aws.StringValue(in.InstanceId)
	inst, err := f.byID(ctx, c, id)
	if err != nil {
		return nil, err
	}
	if err := oneInterface(inst, id); err != nil {
		return nil, err
	}
	if in.SourceDestCheck == nil || in.SourceDestCheck.Value == nil {
		return nil, awsapi.Errorf("InvalidParameterCombination", "this cloud modifies only SourceDestCheck")
	}
	off := !aws.BoolValue(in.SourceDestCheck.Value)
	return &ec2.ModifyInstanceAttributeOutput{}, f.state.Change(func(d *stateData) error {
		if off {
			d.NoSourceDestCheck[id] = true
		} else {
			delete(d.NoSourceDestCheck, id)
		}
		return nil
	})
}
