package amazon

import (
	"context"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// Security groups filter what a classic load balancer sends its
// instances, as in a VPC: "the security groups for your instances must
// allow them to communicate with the load balancer on both the listener
// port and the health check port" (Elastic Load Balancing, "Configure
// security groups for your Classic Load Balancer"). A security group
// denies what no rule allows; the providers open the nodes' group to each
// load balancer's own group with one rule of every protocol
// (updateInstanceSecurityGroupsForLoadBalancer in aws.go, unless
// DisableSecurityGroupIngress). Traffic no rule allows is dropped: the
// health check there times out, so the instance never comes into service.
//
// What is left out, never kinder: a load balancer created without a group
// gets none here (ELB gives it the VPC's default group, which the
// providers never pass over: they always name one), and the groups'
// egress rules are not read (a new group allows all egress, and the
// providers never change it).

// nodeRules are the ingress rules of the instances' security group:
// every instance has the nodes' group only (ec2Instance).
func (f *Face) nodeRules(d *stateData) []*ec2.IpPermission {
	if g, ok := d.Groups[f.opts.Network.NodeGroup()]; ok {
		return g.IpPermissions
	}
	return nil
}

// drops are the node address:port pairs of spec (each registered
// instance at each listener's instance port and at the health check's)
// that no rule of the instances' security group lets the load balancer
// reach, given its security groups.
func (f *Face) drops(rules []*ec2.IpPermission, lbGroups []*string, spec api.LoadBalancerSpec) []string {
	ports := map[int64]bool{}
	for _, p := range spec.Ports {
		ports[int64(p.NodePort)] = true
	}
	if spec.HealthCheck != nil {
		ports[int64(spec.HealthCheck.Port)] = true
	}
	var out []string
	for _, node := range spec.Nodes {
		for port := range ports {
			if !allows(rules, aws.StringValueSlice(lbGroups), f.opts.Network.CIDR, port) {
				out = append(out, net.JoinHostPort(node, strconv.FormatInt(port, 10)))
			}
		}
	}
	sort.Strings(out)
	return out
}

// allows says whether one of rules lets TCP to port in from a load
// balancer in groups: a rule of every protocol or of TCP over the port,
// whose source is one of its groups or an IPv4 range holding all of the
// VPC (where ELB's nodes take their addresses, none known in advance).
func allows(rules []*ec2.IpPermission, groups []string, vpc string, port int64) bool {
	for _, r := range rules {
		if !coversTCP(r, port) {
			continue
		}
		for _, p := range r.UserIdGroupPairs {
			if slices.Contains(groups, aws.StringValue(p.GroupId)) {
				return true
			}
		}
		for _, ipr := range r.IpRanges {
			if holds(aws.StringValue(ipr.CidrIp), vpc) {
				return true
			}
		}
	}
	return false
}

// coversTCP: a rule of every protocol ("-1"), or of TCP ("tcp", "6")
// whose port range holds port.
func coversTCP(r *ec2.IpPermission, port int64) bool {
	switch strings.ToLower(aws.StringValue(r.IpProtocol)) {
	case "-1", "all":
		return true
	case "tcp", "6":
		return aws.Int64Value(r.FromPort) <= port && port <= aws.Int64Value(r.ToPort)
	}
	return false
}

// holds says whether the range outer holds all of inner.
func holds(outer, inner string) bool {
	_, o, err := net.ParseCIDR(outer)
	_, in, err2 := net.ParseCIDR(inner)
	if err != nil || err2 != nil {
		return false
	}
	on, _ := o.Mask.Size()
	inn, _ := in.Mask.Size()
	return on <= inn && o.Contains(in.IP)
}

// refilter applies the security groups as they are now to every load
// balancer the cloud carries, as EC2 applies a rule's change to the
// instances in its group. A load balancer this face has not saved yet (one
// being created) keeps what its creation pushed. The cloud failing to
// apply it is the simulation's failure, never AWS's answer to the caller:
// it is logged, and the next change or push of that load balancer applies
// it again.
func (f *Face) refilter(ctx context.Context) {
	if f.opts.DropTraffic == nil {
		return
	}
	var rules []*ec2.IpPermission
	groups := map[string][]*string{}
	f.state.Read(func(d *stateData) {
		rules = f.nodeRules(d)
		for name, lb := range d.LoadBalancers {
			groups[name] = lb.Description.SecurityGroups
		}
	})
	err := f.opts.DropTraffic(ctx, func(name string, spec api.LoadBalancerSpec) []string {
		g, known := groups[name]
		if !known {
			return spec.Dropped
		}
		return f.drops(rules, g, spec)
	})
	if err != nil {
		f.opts.Logf("applying the security groups to the load balancers: %v", err)
	}
}
