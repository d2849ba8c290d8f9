package amazon

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/elb"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

func (f *Face) describeLoadBalancers(_ context.Context, _ awsapi.Call, in *elb.DescribeLoadBalancersInput) (*elb.DescribeLoadBalancersOutput, error) {
	out := &elb.DescribeLoadBalancersOutput{LoadBalancerDescriptions: []*elb.LoadBalancerDescription{}}
	names := aws.StringValueSlice(in.LoadBalancerNames)
	var missing string
	f.state.Read(func(d *stateData) {
		if len(names) == 0 {
			names = sortedKeys(d.LoadBalancers)
		}
		for _, n := range names {
			lb, ok := d.LoadBalancers[n]
			if !ok {
				missing = n
				return
			}
			out.LoadBalancerDescriptions = append(out.LoadBalancerDescriptions, clone(lb.Description))
		}
	})
	if missing != "" {
		return nil, errNoLB(missing)
	}
	return out, nil
}

func (f *Face) createLoadBalancer(ctx context.Context, c awsapi.Call, in *elb.CreateLoadBalancerInput) (*elb.CreateLoadBalancerOutput, error) {
	name := aws.StringValue(in.LoadBalancerName)
	if _, err := f.lb(name); err == nil {
		return nil, awsapi.Errorf(elb.ErrCodeDuplicateAccessPointNameException, "Load Balancer named '%s' already exists", name)
	}
	n := f.opts.Network
	scheme := aws.StringValue(in.Scheme)
	if scheme == "" {
		scheme = "internet-facing"
	}
	dns := elbDNSName(n, name)
	lb := &classicLB{Tags: map[string]string{}, Attributes: defaultAttributes(), Description: &elb.LoadBalancerDescription{
		LoadBalancerName: aws.String(name), DNSName: aws.String(dns), CanonicalHostedZoneName: aws.String(dns), Scheme: aws.String(scheme),
		VPCId: aws.String(n.VPC()), Subnets: in.Subnets, SecurityGroups: in.SecurityGroups, CreatedTime: aws.Time(f.opts.Now()),
		AvailabilityZones: f.zonesOf(in.Subnets), Instances: []*elb.Instance{}, Policies: &elb.Policies{},
		HealthCheck:         &elb.HealthCheck{Target: aws.String("TCP:80"), Interval: aws.Int64(30), Timeout: aws.Int64(5), HealthyThreshold: aws.Int64(10), UnhealthyThreshold: aws.Int64(2)},
		SourceSecurityGroup: &elb.SourceSecurityGroup{OwnerAlias: aws.String(account), GroupName: aws.String("default_elb")},
	}}
	for _, l := range in.Listeners {
		lb.Description.ListenerDescriptions = append(lb.Description.ListenerDescriptions, &elb.ListenerDescription{Listener: l, PolicyNames: []*string{}})
	}
	for _, t := range in.Tags {
		lb.Tags[aws.StringValue(t.Key)] = aws.StringValue(t.Value)
	}
	if err := f.push(ctx, c, lb, true); err != nil {
		return nil, err
	}
	return &elb.CreateLoadBalancerOutput{DNSName: aws.String(dns)}, f.save(lb)
}

// defaultAttributes are a new load balancer's (ELB's defaults).
func defaultAttributes() *elb.LoadBalancerAttributes {
	return &elb.LoadBalancerAttributes{
		ConnectionDraining:     &elb.ConnectionDraining{Enabled: aws.Bool(false), Timeout: aws.Int64(300)},
		ConnectionSettings:     &elb.ConnectionSettings{IdleTimeout: aws.Int64(60)},
		CrossZoneLoadBalancing: &elb.CrossZoneLoadBalancing{Enabled: aws.Bool(false)},
		AccessLog:              &elb.AccessLog{Enabled: aws.Bool(false)},
	}
}

// zonesOf are the zones of the subnets named.
func (f *Face) zonesOf(subnets []*string) []*string {
	var out []*string
	for _, z := range f.opts.Network.Zones {
		if contains(subnets, f.opts.Network.Subnet(z)) {
			out = append(out, aws.String(z))
		}
	}
	return out
}

func (f *Face) deleteLoadBalancer(ctx context.Context, c awsapi.Call, in *elb.DeleteLoadBalancerInput) (*elb.DeleteLoadBalancerOutput, error) {
	name := aws.StringValue(in.LoadBalancerName)
	if _, err := f.lb(name); err != nil {
		return &elb.DeleteLoadBalancerOutput{}, nil // ELB deletes a missing load balancer without error
	}
	if err := f.cloud(c).DeleteLoadBalancer(ctx, controller(c), name); err != nil && !api.IsNotFound(err) {
		return nil, refusal(err, elbRefusals, nil)
	}
	return &elb.DeleteLoadBalancerOutput{}, f.state.Change(func(d *stateData) error {
		delete(d.LoadBalancers, name)
		return nil
	})
}

// modify loads a load balancer, changes it, pushes it to the cloud when it
// changes traffic, and saves it.
func (f *Face) modify(ctx context.Context, c awsapi.Call, name *string, traffic bool, change func(*classicLB) error) (*classicLB, error) {
	lb, err := f.lb(aws.StringValue(name))
	if err != nil {
		return nil, err
	}
	if err := change(lb); err != nil {
		return nil, err
	}
	if traffic {
		if err := f.push(ctx, c, lb, false); err != nil {
			return nil, err
		}
	}
	return lb, f.save(lb)
}

func (f *Face) createListeners(ctx context.Context, c awsapi.Call, in *elb.CreateLoadBalancerListenersInput) (*elb.CreateLoadBalancerListenersOutput, error) {
	_, err := f.modify(ctx, c, in.LoadBalancerName, true, func(lb *classicLB) error {
		for _, l := range in.Listeners {
			if i := listenerOn(lb, aws.Int64Value(l.LoadBalancerPort)); i >= 0 {
				return awsapi.Errorf(elb.ErrCodeDuplicateListenerException, "a listener on port %d already exists", aws.Int64Value(l.LoadBalancerPort))
			}
			lb.Description.ListenerDescriptions = append(lb.Description.ListenerDescriptions, &elb.ListenerDescription{Listener: l, PolicyNames: []*string{}})
		}
		return nil
	})
	return &elb.CreateLoadBalancerListenersOutput{}, err
}

func listenerOn(lb *classicLB, port int64) int {
	return slices.IndexFunc(lb.Description.ListenerDescriptions, func(l *elb.ListenerDescription) bool {
		return aws.Int64Value(l.Listener.LoadBalancerPort) == port
	})
}

func (f *Face) deleteListeners(ctx context.Context, c awsapi.Call, in *elb.DeleteLoadBalancerListenersInput) (*elb.DeleteLoadBalancerListenersOutput, error) {
	_, err := f.modify(ctx, c, in.LoadBalancerName, true, func(lb *classicLB) error {
		for _, p := range in.LoadBalancerPorts {
			if i := listenerOn(lb, aws.Int64Value(p)); i >= 0 {
				lb.Description.ListenerDescriptions = slices.Delete(lb.Description.ListenerDescriptions, i, i+1)
			}
		}
		return nil
	})
	return &elb.DeleteLoadBalancerListenersOutput{}, err
}

func (f *Face) registerInstances(ctx context.Context, c awsapi.Call, in *elb.RegisterInstancesWithLoadBalancerInput) (*elb.RegisterInstancesWithLoadBalancerOutput, error) {
	// One listing for every instance named (a registration names every
	// node); a refusal of the listing is the cloud's, not a missing instance.
	all, err := f.instances(ctx, c)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, inst := range all {
		ids[InstanceID(f.opts.Network.Cluster, inst.Name)] = true
	}
	for _, i := range in.Instances {
		if !ids[aws.StringValue(i.InstanceId)] {
			return nil, awsapi.Errorf(elb.ErrCodeInvalidEndPointException, "The requested instance %s is not in the load balancer's VPC or does not exist", aws.StringValue(i.InstanceId))
		}
	}
	lb, err := f.modify(ctx, c, in.LoadBalancerName, true, func(lb *classicLB) error {
		for _, i := range in.Instances {
			if !registered(lb, i.InstanceId) {
				lb.Description.Instances = append(lb.Description.Instances, &elb.Instance{InstanceId: i.InstanceId})
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &elb.RegisterInstancesWithLoadBalancerOutput{Instances: lb.Description.Instances}, nil
}

func registered(lb *classicLB, id *string) bool {
	return slices.ContainsFunc(lb.Description.Instances, func(r *elb.Instance) bool { return aws.StringValue(r.InstanceId) == aws.StringValue(id) })
}

func (f *Face) deregisterInstances(ctx context.Context, c awsapi.Call, in *elb.DeregisterInstancesFromLoadBalancerInput) (*elb.DeregisterInstancesFromLoadBalancerOutput, error) {
	lb, err := f.modify(ctx, c, in.LoadBalancerName, true, func(lb *classicLB) error {
		for _, i := range in.Instances {
			if !registered(lb, i.InstanceId) {
				return awsapi.Errorf(elb.ErrCodeInvalidEndPointException, "The instance %s is not registered with the load balancer", aws.StringValue(i.InstanceId))
			}
			lb.Description.Instances = slices.DeleteFunc(lb.Description.Instances, func(r *elb.Instance) bool { return aws.StringValue(r.InstanceId) == aws.StringValue(i.InstanceId) })
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &elb.DeregisterInstancesFromLoadBalancerOutput{Instances: lb.Description.Instances}, nil
}
