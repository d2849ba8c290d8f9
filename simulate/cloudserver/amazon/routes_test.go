package amazon_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
)

// The route controller's calls, as the providers make them: find the
// cluster's table, turn off the instance's source/dest check, route a pod
// range to it, and see it a blackhole once the instance is gone.
func TestRoutesAsTheRouteControllerMakesThem(t *testing.T) {
	r := newRig(t, t.TempDir())
	c := r.ec2(kcm)
	tables, err := c.DescribeRouteTables(&ec2.DescribeRouteTablesInput{})
	if err != nil || len(tables.RouteTables) != 1 {
		t.Fatalf("the cluster's tables: %v, %v", tables, err)
	}
	rtb := tables.RouteTables[0].RouteTableId
	worker := amazon.InstanceID(cluster, "c-worker")
	if _, err := c.ModifyInstanceAttribute(&ec2.ModifyInstanceAttributeInput{InstanceId: aws.String(worker),
		SourceDestCheck: &ec2.AttributeBooleanValue{Value: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRoute(&ec2.CreateRouteInput{RouteTableId: rtb, DestinationCidrBlock: aws.String("10.244.1.0/24"), InstanceId: aws.String(worker)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateRoute(&ec2.CreateRouteInput{RouteTableId: rtb, DestinationCidrBlock: aws.String("10.244.1.0/24"), InstanceId: aws.String(worker)}); code(t, err) != "RouteAlreadyExists" {
		t.Errorf("the same range twice: %v", err)
	}
	// The cloud's own route table holds it, to the instance by name.
	routes, err := r.admin().Routes(context.Background(), "")
	if err != nil || len(routes) != 1 || routes[0].TargetInstance != "c-worker" || routes[0].DestinationCIDR != "10.244.1.0/24" {
		t.Fatalf("the cloud's routes: %v, %v", routes, err)
	}
	state := func() string {
		t.Helper()
		tables, err := c.DescribeRouteTables(&ec2.DescribeRouteTablesInput{RouteTableIds: []*string{rtb}})
		if err != nil {
			t.Fatal(err)
		}
		for _, rt := range tables.RouteTables[0].Routes {
			if aws.StringValue(rt.DestinationCidrBlock) == "10.244.1.0/24" && aws.StringValue(rt.InstanceId) == worker {
				return *rt.State
			}
		}
		return "absent"
	}
	if got := state(); got != "active" {
		t.Errorf("the route: %s", got)
	}
	if err := r.admin().TerminateInstance(context.Background(), "c-worker"); err != nil {
		t.Fatal(err)
	}
	if got := state(); got != "blackhole" {
		t.Errorf("the route to a terminated instance: %s", got)
	}
	if _, err := c.DeleteRoute(&ec2.DeleteRouteInput{RouteTableId: rtb, DestinationCidrBlock: aws.String("10.244.1.0/24")}); err != nil {
		t.Fatal(err)
	}
	if got := state(); got != "absent" {
		t.Errorf("a deleted route: %s", got)
	}
	if _, err := c.DeleteRoute(&ec2.DeleteRouteInput{RouteTableId: rtb, DestinationCidrBlock: aws.String("10.244.1.0/24")}); code(t, err) != "InvalidRoute.NotFound" {
		t.Errorf("deleting it again: %v", err)
	}
}

func TestSourceDestCheckIsKept(t *testing.T) {
	dir := t.TempDir()
	worker := amazon.InstanceID(cluster, "c-worker")
	check := func(r *rig) bool {
		out, err := r.ec2(kcm).DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{worker})})
		if err != nil {
			t.Fatal(err)
		}
		return *out.Reservations[0].Instances[0].SourceDestCheck
	}
	r := newRig(t, dir)
	if !check(r) {
		t.Error("EC2 starts every instance with its check on")
	}
	if _, err := r.ec2(kcm).ModifyInstanceAttribute(&ec2.ModifyInstanceAttributeInput{InstanceId: aws.String(worker),
		SourceDestCheck: &ec2.AttributeBooleanValue{Value: aws.Bool(false)}}); err != nil {
		t.Fatal(err)
	}
	if check(newRig(t, dir)) {
		t.Error("a restarted cloud forgot the check was turned off")
	}
}

// A terminated instance is still described, as EC2 describes one for about
// an hour: by its ID, as terminated, without address or DNS name; the
// providers list routes to it and read its state through that.
func TestTerminatedInstancesAreDescribed(t *testing.T) {
	r := newRig(t, t.TempDir())
	worker := amazon.InstanceID(cluster, "c-worker")
	describe := func() (*ec2.Instance, error) {
		out, err := r.ec2(ccm).DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{worker})})
		if err != nil {
			return nil, err
		}
		return out.Reservations[0].Instances[0], nil
	}
	if in, err := describe(); err != nil || *in.State.Name != "running" {
		t.Fatalf("before: %v %v", in, err)
	}
	if err := r.admin().TerminateInstance(context.Background(), "c-worker"); err != nil {
		t.Fatal(err)
	}
	in, err := describe()
	if err != nil {
		t.Fatalf("a terminated instance is not found: %v", err)
	}
	if *in.State.Name != "terminated" || *in.State.Code != 48 || aws.StringValue(in.PrivateDnsName) != "" || in.PrivateIpAddress != nil ||
		*in.Placement.AvailabilityZone != region+"b" {
		t.Errorf("terminated: %v", in)
	}
	running, err := r.ec2(ccm).DescribeInstances(&ec2.DescribeInstancesInput{Filters: []*ec2.Filter{
		{Name: aws.String("instance-state-name"), Values: aws.StringSlice([]string{"running"})}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range running.Reservations {
		if *res.Instances[0].InstanceId == worker {
			t.Error("a terminated instance listed as running")
		}
	}
	if _, err := r.ec2(ccm).DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{"i-0000000000000dead"})}); code(t, err) != "InvalidInstanceID.NotFound" {
		t.Errorf("an instance never seen: %v", err)
	}
}

// A cluster shaped with two tagged route tables: both answer a tagged
// listing, as the providers' findRouteTable lists them (and refuses
// more than one); naming the main table, or filtering on it, finds it
// alone; the other holds the local route only, and no pod route.
func TestTaggedRouteTablesBesideTheMainOne(t *testing.T) {
	r := newRig(t, t.TempDir(), func(o *amazon.Options) { o.Network.TaggedRouteTables = 2 })
	c := r.ec2(ccm)
	n := amazon.Network{Cluster: cluster, TaggedRouteTables: 2}
	ids := n.RouteTableIDs()
	if len(ids) != 2 || ids[0] != n.RouteTable() || ids[1] == ids[0] {
		t.Fatalf("the tables: %v", ids)
	}
	all, err := c.DescribeRouteTables(&ec2.DescribeRouteTablesInput{Filters: []*ec2.Filter{{Name: aws.String("tag-key"), Values: aws.StringSlice([]string{n.ClusterTag()})}}})
	if err != nil || len(all.RouteTables) != 2 {
		t.Fatalf("tagged tables: %v, %v", all, err)
	}
	other := all.RouteTables[1]
	if aws.StringValue(other.RouteTableId) != ids[1] || len(other.Associations) != 0 || len(other.Routes) != 1 || aws.StringValue(other.Routes[0].GatewayId) != "local" {
		t.Errorf("the further table: %v", other)
	}
	for _, in := range []*ec2.DescribeRouteTablesInput{
		{RouteTableIds: aws.StringSlice([]string{ids[0]})},
		{Filters: []*ec2.Filter{{Name: aws.String("route-table-id"), Values: aws.StringSlice([]string{ids[0]})}}},
		{Filters: []*ec2.Filter{{Name: aws.String("association.main"), Values: aws.StringSlice([]string{"true"})}}},
	} {
		got, err := c.DescribeRouteTables(in)
		if err != nil || len(got.RouteTables) != 1 || aws.StringValue(got.RouteTables[0].RouteTableId) != ids[0] {
			t.Errorf("%v: %v, %v", in, got, err)
		}
	}
	worker := amazon.InstanceID(cluster, "c-worker")
	if _, err := c.CreateRoute(&ec2.CreateRouteInput{RouteTableId: aws.String(ids[1]), DestinationCidrBlock: aws.String("10.244.1.0/24"), InstanceId: aws.String(worker)}); code(t, err) != "UnsupportedOperation" {
		t.Errorf("a route in the further table: %v", err)
	}
	if _, err := c.CreateRoute(&ec2.CreateRouteInput{RouteTableId: aws.String(ids[0]), DestinationCidrBlock: aws.String("10.244.1.0/24"), InstanceId: aws.String(worker)}); err != nil {
		t.Errorf("a route in the main table: %v", err)
	}
}
