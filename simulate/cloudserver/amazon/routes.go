package amazon

import (
	"context"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// The cluster's route tables, each tagged the cluster's. The VPC's main
// table holds the VPC's local route, a default route to an internet
// gateway (what makes the subnets public to the providers'
// isSubnetPublic), and the simulated cloud's routes, each to its instance
// — a blackhole once the instance is gone, as EC2 shows it. A cluster
// shaped with more tagged tables (Network.TaggedRouteTables) has the rest
// beside it, associated with no subnet and holding the local route only,
// as a table a tool tagged for the cluster and left: the providers then
// find several and route nothing ("found multiple matching AWS route
// tables", findRouteTable in aws_routes.go) unless their cloud-config
// names one (RouteTableID).

// routeName names a route in the cloud's table as the cloud's own
// routes are named, after the cluster (its pod network reads those).
func routeName(cluster, cidr string) string {
	return cluster + "-" + strings.NewReplacer("/", "-", ":", "-").Replace(cidr)
}

func (f *Face) describeRouteTables(ctx context.Context, c awsapi.Call, in *ec2.DescribeRouteTablesInput) (*ec2.DescribeRouteTablesOutput, error) {
	n := f.opts.Network
	out := &ec2.DescribeRouteTablesOutput{RouteTables: []*ec2.RouteTable{}}
	for _, id := range n.RouteTableIDs() {
		main := id == n.RouteTable()
		tags := f.tagsOf(id, map[string]string{n.ClusterTag(): owned})
		a := attrs{"route-table-id": {id}, "vpc-id": {n.VPC()}}
		if main {
			a["association.main"] = []string{"true"}
		}
		ok, err := match(in.Filters, a, tags, []string{"route-table-id", "vpc-id", "association.main"})
		if err != nil {
			return nil, err
		}
		if !ok || (len(in.RouteTableIds) > 0 && !contains(in.RouteTableIds, id)) {
			continue
		}
		table := &ec2.RouteTable{RouteTableId: aws.String(id), VpcId: aws.String(n.VPC()), OwnerId: aws.String(account), Tags: ec2Tags(tags),
			Routes: []*ec2.Route{localRoute(n)}, Associations: []*ec2.RouteTableAssociation{}}
		if main {
			if table.Routes, err = f.routes(ctx, c); err != nil {
				return nil, err
			}
			table.Associations = []*ec2.RouteTableAssociation{{Main: aws.Bool(true), RouteTableId: aws.String(id),
				RouteTableAssociationId: aws.String("rtbassoc-" + hexID(n.Cluster, "rtbassoc", 17))}}
		}
		out.RouteTables = append(out.RouteTables, table)
	}
	return out, nil
}

// localRoute is the VPC's route to its own range, in every table.
func localRoute(n Network) *ec2.Route {
	return &ec2.Route{DestinationCidrBlock: aws.String(n.CIDR), GatewayId: aws.String("local"), State: aws.String(ec2.RouteStateActive), Origin: aws.String("CreateRouteTable")}
}

// routes are the table's routes, the cloud's after the VPC's own two.
func (f *Face) routes(ctx context.Context, c awsapi.Call) ([]*ec2.Route, error) {
	n := f.opts.Network
	cloud, err := f.cloud(c).Routes(ctx, controller(c))
	if err != nil {
		return nil, refusal(err, ec2Refusals, nil)
	}
	all, err := f.instances(ctx, c)
	if err != nil {
		return nil, err
	}
	live := map[string]bool{}
	for _, in := range all {
		live[in.Name] = true
	}
	out := []*ec2.Route{localRoute(n),
		{DestinationCidrBlock: aws.String("0.0.0.0/0"), GatewayId: aws.String("igw-" + hexID(n.Cluster, "igw", 17)), State: aws.String(ec2.RouteStateActive), Origin: aws.String("CreateRoute")},
	}
	for _, r := range cloud {
		state := ec2.RouteStateActive
		if r.Blackhole || !live[r.TargetInstance] {
			state = ec2.RouteStateBlackhole
		}
		route := &ec2.Route{DestinationCidrBlock: aws.String(r.DestinationCIDR), State: aws.String(state), Origin: aws.String("CreateRoute")}
		if r.TargetInstance != "" {
			route.InstanceId = aws.String(InstanceID(n.Cluster, r.TargetInstance))
			route.InstanceOwnerId = aws.String(account)
			route.NetworkInterfaceId = aws.String(n.Interface(r.TargetInstance))
		}
		out = append(out, route)
	}
	return out, nil
}

// table checks a request names the VPC's main table, the one whose
// routes the pod network follows. A further tagged table exists, and EC2
// would take a route there, which would carry nothing (the table is
// associated with no subnet): this cloud refuses it instead, a deviation
// from EC2 said in the error, so that a route written where no packet
// takes it does not pass unseen.
func (f *Face) table(id *string) error {
	n := f.opts.Network
	switch want := aws.StringValue(id); {
	case want == n.RouteTable():
		return nil
	case slices.Contains(n.RouteTableIDs(), want):
		return awsapi.Errorf("UnsupportedOperation", "the route table %s is associated with no subnet: this simulated cloud routes pod ranges through the VPC's main table %s only", want, n.RouteTable())
	default:
		return awsapi.Errorf("InvalidRouteTableID.NotFound", "The routeTable ID '%s' does not exist", want)
	}
}

func (f *Face) createRoute(ctx context.Context, c awsapi.Call, in *ec2.CreateRouteInput) (*ec2.CreateRouteOutput, error) {
	if err := f.table(in.RouteTableId); err != nil {
		return nil, err
	}
	if in.InstanceId == nil {
		return nil, awsapi.Errorf("InvalidParameterCombination", "this cloud routes pod ranges to instances only (InstanceId)")
	}
	inst, err := f.byID(ctx, c, aws.StringValue(in.InstanceId))
	if err != nil {
		return nil, err
	}
	if err := oneInterface(inst, aws.StringValue(in.InstanceId)); err != nil {
		return nil, err
	}
	cidr := aws.StringValue(in.DestinationCidrBlock)
	if _, found, err := f.routeTo(ctx, c, cidr); err != nil || found {
		if err == nil {
			err = awsapi.Errorf("RouteAlreadyExists", "The route identified by %s already exists.", cidr)
		}
		return nil, err
	}
	err = f.cloud(c).CreateRoute(ctx, controller(c), api.Route{Name: routeName(f.opts.Network.Cluster, cidr), DestinationCIDR: cidr, TargetInstance: inst.Name})
	if err != nil {
		return nil, refusal(err, ec2Refusals, errInstanceNotFound(aws.StringValue(in.InstanceId)))
	}
	return &ec2.CreateRouteOutput{Return: aws.Bool(true)}, nil
}

func (f *Face) deleteRoute(ctx context.Context, c awsapi.Call, in *ec2.DeleteRouteInput) (*ec2.DeleteRouteOutput, error) {
	if err := f.table(in.RouteTableId); err != nil {
		return nil, err
	}
	cidr := aws.StringValue(in.DestinationCidrBlock)
	r, found, err := f.routeTo(ctx, c, cidr)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, awsapi.Errorf("InvalidRoute.NotFound", "no route with destination-cidr-block %s in the table %s", cidr, aws.StringValue(in.RouteTableId))
	}
	if err := f.cloud(c).DeleteRoute(ctx, controller(c), r.Name); err != nil {
		return nil, refusal(err, ec2Refusals, nil)
	}
	return &ec2.DeleteRouteOutput{}, nil
}

// routeTo is the cloud's route for a destination, if it has one.
func (f *Face) routeTo(ctx context.Context, c awsapi.Call, cidr string) (api.Route, bool, error) {
	existing, err := f.cloud(c).Routes(ctx, controller(c))
	if err != nil {
		return api.Route{}, false, refusal(err, ec2Refusals, nil)
	}
	for _, r := range existing {
		if r.DestinationCIDR == cidr {
			return r, true, nil
		}
	}
	return api.Route{}, false, nil
}
