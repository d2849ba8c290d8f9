package amazon

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/elb"

	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// A load balancer's settings that carry no traffic here: subnets, security
// groups, health check, attributes, tags and policies. They are kept and
// described back, so the providers' reconciliation sees what it set.

func (f *Face) attachSubnets(ctx context.Context, c awsapi.Call, in *elb.AttachLoadBalancerToSubnetsInput) (*elb.AttachLoadBalancerToSubnetsOutput, error) {
	lb, err := f.modify(ctx, c, in.LoadBalancerName, false, func(lb *classicLB) error {
		for _, s := range in.Subnets {
			if !contains(lb.Description.Subnets, aws.StringValue(s)) {
				lb.Description.Subnets = append(lb.Description.Subnets, s)
			}
		}
		lb.Description.AvailabilityZones = f.zonesOf(lb.Description.Subnets)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &elb.AttachLoadBalancerToSubnetsOutput{Subnets: lb.Description.Subnets}, nil
}

func (f *Face) detachSubnets(ctx context.Context, c awsapi.Call, in *elb.DetachLoadBalancerFromSubnetsInput) (*elb.DetachLoadBalancerFromSubnetsOutput, error) {
	lb, err := f.modify(ctx, c, in.LoadBalancerName, false, func(lb *classicLB) error {
		lb.Description.Subnets = slices.DeleteFunc(lb.Description.Subnets, func(s *string) bool { return contains(in.Subnets, aws.StringValue(s)) })
		lb.Description.AvailabilityZones = f.zonesOf(lb.Description.Subnets)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &elb.DetachLoadBalancerFromSubnetsOutput{Subnets: lb.Description.Subnets}, nil
}

func (f *Face) applySecurityGroups(ctx context.Context, c awsapi.Call, in *elb.ApplySecurityGroupsToLoadBalancerInput) (*elb.ApplySecurityGroupsToLoadBalancerOutput, error) {
	known := map[string]bool{}
	for _, g := range f.groups() {
		known[*g.GroupId] = true
	}
	for _, g := range in.SecurityGroups {
		if !known[aws.StringValue(g)] {
			return nil, awsapi.Errorf(elb.ErrCodeInvalidSecurityGroupException, "One or more security groups are invalid: %s", aws.StringValue(g))
		}
	}
	_, err := f.modify(ctx, c, in.LoadBalancerName, false, func(lb *classicLB) error {
		lb.Description.SecurityGroups = in.SecurityGroups
		return nil
	})
	if err == nil {
		f.refilter(ctx) // the instances' rules now judge these groups
	}
	return &elb.ApplySecurityGroupsToLoadBalancerOutput{SecurityGroups: in.SecurityGroups}, err
}

func (f *Face) configureHealthCheck(ctx context.Context, c awsapi.Call, in *elb.ConfigureHealthCheckInput) (*elb.ConfigureHealthCheckOutput, error) {
	if in.HealthCheck == nil {
		return nil, awsapi.Errorf("ValidationError", "HealthCheck is required")
	}
	if _, err := healthCheck(in.HealthCheck); err != nil {
		return nil, err
	}
	// The cloud's load balancer checks its instances as configured from now.
	_, err := f.modify(ctx, c, in.LoadBalancerName, true, func(lb *classicLB) error {
		lb.Description.HealthCheck = in.HealthCheck
		return nil
	})
	return &elb.ConfigureHealthCheckOutput{HealthCheck: in.HealthCheck}, err
}

func (f *Face) describeAttributes(_ context.Context, _ awsapi.Call, in *elb.DescribeLoadBalancerAttributesInput) (*elb.DescribeLoadBalancerAttributesOutput, error) {
	lb, err := f.lb(aws.StringValue(in.LoadBalancerName))
	if err != nil {
		return nil, err
	}
	return &elb.DescribeLoadBalancerAttributesOutput{LoadBalancerAttributes: lb.Attributes}, nil
}

// modifyAttributes sets the attributes given, leaving the others.
func (f *Face) modifyAttributes(ctx context.Context, c awsapi.Call, in *elb.ModifyLoadBalancerAttributesInput) (*elb.ModifyLoadBalancerAttributesOutput, error) {
	set := in.LoadBalancerAttributes
	// A change of connection draining changes what the load balancer
	// does with its instances' connections: the cloud's is changed too.
	lb, err := f.modify(ctx, c, in.LoadBalancerName, set != nil && set.ConnectionDraining != nil, func(lb *classicLB) error {
		a := lb.Attributes
		if set == nil {
			return awsapi.Errorf("ValidationError", "LoadBalancerAttributes is required")
		}
		if d := set.ConnectionDraining; d != nil {
			if err := validDraining(d); err != nil {
				return err
			}
			a.ConnectionDraining = &elb.ConnectionDraining{Enabled: d.Enabled, Timeout: d.Timeout}
			if d.Timeout == nil {
				a.ConnectionDraining.Timeout = aws.Int64(300)
			}
		}
		if set.ConnectionSettings != nil {
			a.ConnectionSettings = set.ConnectionSettings
		}
		if set.CrossZoneLoadBalancing != nil {
			a.CrossZoneLoadBalancing = set.CrossZoneLoadBalancing
		}
		if set.AccessLog != nil {
			a.AccessLog = set.AccessLog
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &elb.ModifyLoadBalancerAttributesOutput{LoadBalancerName: in.LoadBalancerName, LoadBalancerAttributes: lb.Attributes}, nil
}

// validDraining: Enabled is required, and a timeout is 1 to 3600
// seconds (ELB's ConnectionDraining: "Timeout ... Valid Range: 1-3600";
// unset, 300).
func validDraining(d *elb.ConnectionDraining) error {
	if d.Enabled == nil {
		return awsapi.Errorf("ValidationError", "ConnectionDraining.Enabled is required")
	}
	if t := d.Timeout; t != nil && (*t < 1 || *t > 3600) {
		return awsapi.Errorf(elb.ErrCodeInvalidConfigurationRequestException, "connection draining timeout %d: 1 to 3600 seconds", *t)
	}
	return nil
}

func (f *Face) addTags(ctx context.Context, c awsapi.Call, in *elb.AddTagsInput) (*elb.AddTagsOutput, error) {
	for _, name := range in.LoadBalancerNames {
		_, err := f.modify(ctx, c, name, false, func(lb *classicLB) error {
			for _, t := range in.Tags {
				lb.Tags[aws.StringValue(t.Key)] = aws.StringValue(t.Value)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return &elb.AddTagsOutput{}, nil
}

func (f *Face) describeTags(_ context.Context, _ awsapi.Call, in *elb.DescribeTagsInput) (*elb.DescribeTagsOutput, error) {
	out := &elb.DescribeTagsOutput{TagDescriptions: []*elb.TagDescription{}}
	for _, name := range in.LoadBalancerNames {
		lb, err := f.lb(aws.StringValue(name))
		if err != nil {
			return nil, err
		}
		d := &elb.TagDescription{LoadBalancerName: name, Tags: []*elb.Tag{}}
		for _, k := range sortedKeys(lb.Tags) {
			d.Tags = append(d.Tags, &elb.Tag{Key: aws.String(k), Value: aws.String(lb.Tags[k])})
		}
		out.TagDescriptions = append(out.TagDescriptions, d)
	}
	return out, nil
}

func (f *Face) createPolicy(ctx context.Context, c awsapi.Call, in *elb.CreateLoadBalancerPolicyInput) (*elb.CreateLoadBalancerPolicyOutput, error) {
	_, err := f.modify(ctx, c, in.LoadBalancerName, false, func(lb *classicLB) error {
		name := aws.StringValue(in.PolicyName)
		if slices.ContainsFunc(lb.Policies, func(p *elb.PolicyDescription) bool { return aws.StringValue(p.PolicyName) == name }) {
			return awsapi.Errorf(elb.ErrCodeDuplicatePolicyNameException, "Policy %s already exists", name)
		}
		p := &elb.PolicyDescription{PolicyName: in.PolicyName, PolicyTypeName: in.PolicyTypeName}
		for _, a := range in.PolicyAttributes {
			p.PolicyAttributeDescriptions = append(p.PolicyAttributeDescriptions, &elb.PolicyAttributeDescription{AttributeName: a.AttributeName, AttributeValue: a.AttributeValue})
		}
		lb.Policies = append(lb.Policies, p)
		lb.Description.Policies.OtherPolicies = append(lb.Description.Policies.OtherPolicies, in.PolicyName)
		return nil
	})
	return &elb.CreateLoadBalancerPolicyOutput{}, err
}

func (f *Face) describePolicies(_ context.Context, _ awsapi.Call, in *elb.DescribeLoadBalancerPoliciesInput) (*elb.DescribeLoadBalancerPoliciesOutput, error) {
	lb, err := f.lb(aws.StringValue(in.LoadBalancerName))
	if err != nil {
		return nil, err
	}
	out := &elb.DescribeLoadBalancerPoliciesOutput{PolicyDescriptions: []*elb.PolicyDescription{}}
	for _, want := range in.PolicyNames {
		i := slices.IndexFunc(lb.Policies, func(p *elb.PolicyDescription) bool { return aws.StringValue(p.PolicyName) == aws.StringValue(want) })
		if i < 0 {
			return nil, awsapi.Errorf(elb.ErrCodePolicyNotFoundException, "There is no policy with name %s for load balancer %s", aws.StringValue(want), aws.StringValue(in.LoadBalancerName))
		}
		out.PolicyDescriptions = append(out.PolicyDescriptions, lb.Policies[i])
	}
	if len(in.PolicyNames) == 0 {
		out.PolicyDescriptions = append(out.PolicyDescriptions, lb.Policies...)
	}
	return out, nil
}

// knownPolicies refuses a policy name the load balancer does not have.
func knownPolicies(lb *classicLB, names []*string) error {
	for _, n := range names {
		if !slices.ContainsFunc(lb.Policies, func(p *elb.PolicyDescription) bool { return aws.StringValue(p.PolicyName) == aws.StringValue(n) }) {
			return awsapi.Errorf(elb.ErrCodePolicyNotFoundException, "There is no policy with name %s for load balancer %s", aws.StringValue(n), *lb.Description.LoadBalancerName)
		}
	}
	return nil
}

func (f *Face) setListenerPolicies(ctx context.Context, c awsapi.Call, in *elb.SetLoadBalancerPoliciesOfListenerInput) (*elb.SetLoadBalancerPoliciesOfListenerOutput, error) {
	_, err := f.modify(ctx, c, in.LoadBalancerName, false, func(lb *classicLB) error {
		i := listenerOn(lb, aws.Int64Value(in.LoadBalancerPort))
		if i < 0 {
			return awsapi.Errorf(elb.ErrCodeListenerNotFoundException, "There is no listener on port %d", aws.Int64Value(in.LoadBalancerPort))
		}
		if err := knownPolicies(lb, in.PolicyNames); err != nil {
			return err
		}
		lb.Description.ListenerDescriptions[i].PolicyNames = in.PolicyNames
		return nil
	})
	return &elb.SetLoadBalancerPoliciesOfListenerOutput{}, err
}

func (f *Face) setBackendPolicies(ctx context.Context, c awsapi.Call, in *elb.SetLoadBalancerPoliciesForBackendServerInput) (*elb.SetLoadBalancerPoliciesForBackendServerOutput, error) {
	_, err := f.modify(ctx, c, in.LoadBalancerName, false, func(lb *classicLB) error {
		if err := knownPolicies(lb, in.PolicyNames); err != nil {
			return err
		}
		port := aws.Int64Value(in.InstancePort)
		lb.Description.BackendServerDescriptions = slices.DeleteFunc(lb.Description.BackendServerDescriptions,
			func(b *elb.BackendServerDescription) bool { return aws.Int64Value(b.InstancePort) == port })
		if len(in.PolicyNames) > 0 {
			lb.Description.BackendServerDescriptions = append(lb.Description.BackendServerDescriptions,
				&elb.BackendServerDescription{InstancePort: in.InstancePort, PolicyNames: in.PolicyNames})
		}
		return nil
	})
	return &elb.SetLoadBalancerPoliciesForBackendServerOutput{}, err
}
