package amazon

import (
	"context"
	"slices"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"
	"github.com/aws/aws-sdk-go/service/elb"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

// classicLB is a classic load balancer as ELB keeps it; the simulated
// cloud's load balancer of the same name carries its traffic: a port per
// listener, to the registered instances' addresses.
type classicLB struct {
	Description *elb.LoadBalancerDescription `json:"description"`
	Attributes  *elb.LoadBalancerAttributes  `json:"attributes"`
	Tags        map[string]string            `json:"tags"`
	Policies    []*elb.PolicyDescription     `json:"policies,omitempty"`
}

// serviceTag names the Service a load balancer is for
// (TagNameKubernetesService in the providers' tags.go).
const serviceTag = "kubernetes.io/service-name"

func errNoLB(name string) *awsapi.Error {
	return awsapi.Errorf(elb.ErrCodeAccessPointNotFoundException, "There is no ACTIVE Load Balancer named '%s'", name)
}

// lb is a copy of the named load balancer's record.
func (f *Face) lb(name string) (*classicLB, error) {
	var out *classicLB
	f.state.Read(func(d *stateData) {
		if lb, ok := d.LoadBalancers[name]; ok {
			out = clone(lb)
		}
	})
	if out == nil {
		return nil, errNoLB(name)
	}
	return out, nil
}

// save writes a changed load balancer back.
func (f *Face) save(lb *classicLB) error {
	return f.state.Change(func(d *stateData) error {
		d.LoadBalancers[*lb.Description.LoadBalancerName] = lb
		return nil
	})
}

// push makes the cloud's load balancer carry what lb says: create names
// whether it may be made.
func (f *Face) push(ctx context.Context, c awsapi.Call, lb *classicLB, create bool) error {
	spec := api.LoadBalancerSpec{Service: lb.Tags[serviceTag]}
	for _, l := range lb.Description.ListenerDescriptions {
		spec.Ports = append(spec.Ports, api.Port{Protocol: "TCP", Port: int32(aws.Int64Value(l.Listener.LoadBalancerPort)),
			NodePort: int32(aws.Int64Value(l.Listener.InstancePort))})
	}
	if len(spec.Ports) == 0 {
		return awsapi.Errorf(elb.ErrCodeInvalidConfigurationRequestException, "a load balancer needs at least one listener")
	}
	addrs, err := f.addresses(ctx, c, lb.Description.Instances)
	if err != nil {
		return err
	}
	spec.Nodes = addrs
	if spec.HealthCheck, err = healthCheck(lb.Description.HealthCheck); err != nil {
		return err
	}
	var rules []*ec2.IpPermission
	f.state.Read(func(d *stateData) { rules = f.nodeRules(d) })
	spec.Dropped = f.drops(rules, lb.Description.SecurityGroups, spec)
	spec.Draining = draining(lb.Attributes)
	name := *lb.Description.LoadBalancerName
	cloud := f.cloud(c).UpdateLoadBalancer
	if create {
		cloud = f.cloud(c).EnsureLoadBalancer
	}
	if _, err := cloud(ctx, controller(c), name, spec); err != nil {
		return refusal(err, elbRefusals, errNoLB(name))
	}
	return nil
}

// addresses are the registered instances' private addresses; an instance
// gone since it was registered keeps no address.
func (f *Face) addresses(ctx context.Context, c awsapi.Call, registered []*elb.Instance) ([]string, error) {
	all, err := f.instances(ctx, c)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, in := range all {
		id := InstanceID(f.opts.Network.Cluster, in.Name)
		if slices.ContainsFunc(registered, func(r *elb.Instance) bool { return aws.StringValue(r.InstanceId) == id }) {
			out = append(out, internalIP(in))
		}
	}
	return out, nil
}

// draining is the load balancer's connection draining as the cloud
// carries it: off (ELB's default for a load balancer made through the
// API) closes a leaving instance's connections at once.
func draining(a *elb.LoadBalancerAttributes) *api.Draining {
	d := &api.Draining{}
	if a != nil && a.ConnectionDraining != nil && aws.BoolValue(a.ConnectionDraining.Enabled) {
		d.Enabled, d.Timeout = true, int32(aws.Int64Value(a.ConnectionDraining.Timeout))
	}
	return d
}
