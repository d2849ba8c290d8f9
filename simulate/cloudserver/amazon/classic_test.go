package amazon_test

import (
	"context"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/elb"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

func (r *rig) elb(key awsapi.Key) *elb.ELB {
	return elb.New(session.Must(r.session(key)), &aws.Config{Endpoint: aws.String(r.awsAt + "/elasticloadbalancing")})
}

// cloudLB is the simulated cloud's load balancer of that name.
func (r *rig) cloudLB(t *testing.T, name string) *api.LoadBalancer {
	t.Helper()
	lb, err := r.admin().LoadBalancer(context.Background(), "", name)
	if err != nil && !api.IsNotFound(err) {
		t.Fatal(err)
	}
	return lb
}

// A Service's classic load balancer, as the providers' ensureLoadBalancer
// makes and changes it: its traffic is the cloud's load balancer of the
// same name, on the listeners' ports, to the registered instances.
func TestClassicLoadBalancerCarriesTraffic(t *testing.T) {
	r := newRig(t, t.TempDir())
	c := r.elb(ccm)
	n := amazon.Network{Cluster: cluster}
	name := "a0123456789abcdef0123456789abcd"
	if _, err := c.DescribeLoadBalancers(&elb.DescribeLoadBalancersInput{LoadBalancerNames: aws.StringSlice([]string{name})}); code(t, err) != "LoadBalancerNotFound" {
		t.Fatalf("before it exists: %v", err)
	}
	made, err := c.CreateLoadBalancer(&elb.CreateLoadBalancerInput{LoadBalancerName: aws.String(name),
		Listeners: []*elb.Listener{{Protocol: aws.String("TCP"), LoadBalancerPort: aws.Int64(80), InstanceProtocol: aws.String("TCP"), InstancePort: aws.Int64(30080)}},
		Subnets:   aws.StringSlice([]string{n.Subnet(region + "a"), n.Subnet(region + "b")}), SecurityGroups: aws.StringSlice([]string{n.NodeGroup()}),
		Tags: []*elb.Tag{{Key: aws.String("kubernetes.io/service-name"), Value: aws.String("load/web")}, {Key: aws.String("kubernetes.io/cluster/" + cluster), Value: aws.String("owned")}}})
	if err != nil {
		t.Fatal(err)
	}
	if back, ok := amazon.ELBNameOfDNS(*made.DNSName); !ok || back != name {
		t.Errorf("the DNS name %s leads to %q, not %s", *made.DNSName, back, name)
	}
	if _, err := c.CreateLoadBalancer(&elb.CreateLoadBalancerInput{LoadBalancerName: aws.String(name), Listeners: []*elb.Listener{{Protocol: aws.String("TCP"), LoadBalancerPort: aws.Int64(80), InstancePort: aws.Int64(30080)}}}); code(t, err) != "DuplicateLoadBalancerName" {
		t.Errorf("the same name twice: %v", err)
	}
	ids := []*elb.Instance{{InstanceId: aws.String(amazon.InstanceID(cluster, "c-control-plane"))}, {InstanceId: aws.String(amazon.InstanceID(cluster, "c-worker"))}}
	if _, err := c.RegisterInstancesWithLoadBalancer(&elb.RegisterInstancesWithLoadBalancerInput{LoadBalancerName: aws.String(name), Instances: ids}); err != nil {
		t.Fatal(err)
	}
	lb := r.cloudLB(t, name)
	if lb == nil || lb.Spec.Service != "load/web" || len(lb.Spec.Ports) != 1 || lb.Spec.Ports[0].NodePort != 30080 ||
		!slices.Equal(lb.Spec.Nodes, []string{"172.18.0.2", "172.18.0.3"}) {
		t.Fatalf("the cloud's load balancer: %+v", lb)
	}
	if _, err := c.CreateLoadBalancerListeners(&elb.CreateLoadBalancerListenersInput{LoadBalancerName: aws.String(name),
		Listeners: []*elb.Listener{{Protocol: aws.String("TCP"), LoadBalancerPort: aws.Int64(443), InstancePort: aws.Int64(30443)}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeregisterInstancesFromLoadBalancer(&elb.DeregisterInstancesFromLoadBalancerInput{LoadBalancerName: aws.String(name), Instances: ids[:1]}); err != nil {
		t.Fatal(err)
	}
	if lb := r.cloudLB(t, name); len(lb.Spec.Ports) != 2 || !slices.Equal(lb.Spec.Nodes, []string{"172.18.0.3"}) {
		t.Errorf("after a listener and a deregistration: %+v", lb)
	}
	desc, err := c.DescribeLoadBalancers(&elb.DescribeLoadBalancersInput{LoadBalancerNames: aws.StringSlice([]string{name})})
	if err != nil {
		t.Fatal(err)
	}
	d := desc.LoadBalancerDescriptions[0]
	if *d.DNSName != *made.DNSName || len(d.ListenerDescriptions) != 2 || len(d.Instances) != 1 || len(d.AvailabilityZones) != 2 {
		t.Errorf("described: %v", d)
	}
	if _, err := c.DeleteLoadBalancer(&elb.DeleteLoadBalancerInput{LoadBalancerName: aws.String(name)}); err != nil {
		t.Fatal(err)
	}
	if lb := r.cloudLB(t, name); lb != nil {
		t.Errorf("the cloud's load balancer outlived its ELB: %+v", lb)
	}
}

// The settings the providers reconcile read back as they were set.
func TestClassicLoadBalancerSettingsReadBack(t *testing.T) {
	r := newRig(t, t.TempDir())
	c := r.elb(ccm)
	name := aws.String("a1")
	if _, err := c.CreateLoadBalancer(&elb.CreateLoadBalancerInput{LoadBalancerName: name,
		Listeners: []*elb.Listener{{Protocol: aws.String("TCP"), LoadBalancerPort: aws.Int64(80), InstancePort: aws.Int64(30080)}}}); err != nil {
		t.Fatal(err)
	}
	hc := &elb.HealthCheck{Target: aws.String("TCP:30080"), Interval: aws.Int64(10), Timeout: aws.Int64(5), HealthyThreshold: aws.Int64(2), UnhealthyThreshold: aws.Int64(6)}
	if _, err := c.ConfigureHealthCheck(&elb.ConfigureHealthCheckInput{LoadBalancerName: name, HealthCheck: hc}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ModifyLoadBalancerAttributes(&elb.ModifyLoadBalancerAttributesInput{LoadBalancerName: name,
		LoadBalancerAttributes: &elb.LoadBalancerAttributes{ConnectionSettings: &elb.ConnectionSettings{IdleTimeout: aws.Int64(120)}}}); err != nil {
		t.Fatal(err)
	}
	attrs, err := c.DescribeLoadBalancerAttributes(&elb.DescribeLoadBalancerAttributesInput{LoadBalancerName: name})
	if err != nil || *attrs.LoadBalancerAttributes.ConnectionSettings.IdleTimeout != 120 || *attrs.LoadBalancerAttributes.CrossZoneLoadBalancing.Enabled {
		t.Errorf("attributes: %v, %v", attrs, err)
	}
	if _, err := c.DescribeLoadBalancerPolicies(&elb.DescribeLoadBalancerPoliciesInput{LoadBalancerName: name, PolicyNames: aws.StringSlice([]string{"k8s-proxyprotocol-enabled"})}); code(t, err) != "PolicyNotFound" {
		t.Errorf("a policy never made: %v", err)
	}
	if _, err := c.CreateLoadBalancerPolicy(&elb.CreateLoadBalancerPolicyInput{LoadBalancerName: name, PolicyName: aws.String("k8s-proxyprotocol-enabled"),
		PolicyTypeName: aws.String("ProxyProtocolPolicyType"), PolicyAttributes: []*elb.PolicyAttribute{{AttributeName: aws.String("ProxyProtocol"), AttributeValue: aws.String("true")}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.SetLoadBalancerPoliciesForBackendServer(&elb.SetLoadBalancerPoliciesForBackendServerInput{LoadBalancerName: name, InstancePort: aws.Int64(30080),
		PolicyNames: aws.StringSlice([]string{"k8s-proxyprotocol-enabled"})}); err != nil {
		t.Fatal(err)
	}
	desc, err := c.DescribeLoadBalancers(&elb.DescribeLoadBalancersInput{LoadBalancerNames: []*string{name}})
	if err != nil {
		t.Fatal(err)
	}
	d := desc.LoadBalancerDescriptions[0]
	if *d.HealthCheck.Target != "TCP:30080" || len(d.BackendServerDescriptions) != 1 || *d.BackendServerDescriptions[0].PolicyNames[0] != "k8s-proxyprotocol-enabled" {
		t.Errorf("described: %v", d)
	}
	// The cloud's load balancer checks its instances as configured.
	want := api.HealthCheck{Protocol: "TCP", Port: 30080, Interval: 10, Timeout: 5, Healthy: 2, Unhealthy: 6}
	if got := r.cloudLB(t, "a1").Spec.HealthCheck; got == nil || *got != want {
		t.Errorf("the cloud's load balancer checks %+v, want %+v", got, want)
	}
	hc.Target = aws.String("HTTP:30081/healthz")
	if _, err := c.ConfigureHealthCheck(&elb.ConfigureHealthCheckInput{LoadBalancerName: name, HealthCheck: hc}); err != nil {
		t.Fatal(err)
	}
	if got := r.cloudLB(t, "a1").Spec.HealthCheck; got == nil || got.Protocol != "HTTP" || got.Port != 30081 || got.Path != "/healthz" {
		t.Errorf("after a new target the cloud's load balancer checks %+v", got)
	}
	for _, bad := range []string{"TCP", "TCP:0", "UDP:30080", "HTTP:30080", "TCP:30080/x"} {
		hc.Target = aws.String(bad)
		if _, err := c.ConfigureHealthCheck(&elb.ConfigureHealthCheckInput{LoadBalancerName: name, HealthCheck: hc}); code(t, err) != "ValidationError" {
			t.Errorf("target %q: %v, want ValidationError", bad, err)
		}
	}
}

// The cloud's deny knob on EnsureLoadBalancer reaches the ELB caller as
// AccessDenied, and nothing is made.
func TestDeniedLoadBalancerIsAccessDenied(t *testing.T) {
	r := newRig(t, t.TempDir())
	if err := r.admin().SetFaults(context.Background(), api.Faults{Deny: map[string][]string{"cloud-controller-manager": {"EnsureLoadBalancer"}}}); err != nil {
		t.Fatal(err)
	}
	_, err := r.elb(ccm).CreateLoadBalancer(&elb.CreateLoadBalancerInput{LoadBalancerName: aws.String("a2"),
		Listeners: []*elb.Listener{{Protocol: aws.String("TCP"), LoadBalancerPort: aws.Int64(80), InstancePort: aws.Int64(30080)}}})
	if got := code(t, err); got != "AccessDenied" {
		t.Errorf("denied: %s", got)
	}
	if _, err := r.elb(ccm).DescribeLoadBalancers(&elb.DescribeLoadBalancersInput{LoadBalancerNames: aws.StringSlice([]string{"a2"})}); code(t, err) != "LoadBalancerNotFound" {
		t.Errorf("a refused load balancer exists: %v", err)
	}
}

// Connection draining as ELB takes it: off on a load balancer made
// through the API, on with a timeout once set, 300 s when none is given,
// and a timeout beyond 1–3600 s refused. The cloud's load balancer
// carries each setting.
func TestConnectionDrainingReachesTheCloud(t *testing.T) {
	r := newRig(t, t.TempDir())
	c := r.elb(ccm)
	name := aws.String("a1")
	if _, err := c.CreateLoadBalancer(&elb.CreateLoadBalancerInput{LoadBalancerName: name,
		Listeners: []*elb.Listener{{Protocol: aws.String("TCP"), LoadBalancerPort: aws.Int64(80), InstancePort: aws.Int64(30080)}}}); err != nil {
		t.Fatal(err)
	}
	if got := r.cloudLB(t, "a1").Spec.Draining; got == nil || got.Enabled {
		t.Errorf("a new load balancer drains: %+v", got)
	}
	modify := func(d *elb.ConnectionDraining) error {
		_, err := c.ModifyLoadBalancerAttributes(&elb.ModifyLoadBalancerAttributesInput{LoadBalancerName: name,
			LoadBalancerAttributes: &elb.LoadBalancerAttributes{ConnectionDraining: d}})
		return err
	}
	if err := modify(&elb.ConnectionDraining{Enabled: aws.Bool(true), Timeout: aws.Int64(30)}); err != nil {
		t.Fatal(err)
	}
	if got := r.cloudLB(t, "a1").Spec.Draining; got == nil || *got != (api.Draining{Enabled: true, Timeout: 30}) {
		t.Errorf("draining 30 s: the cloud's %+v", got)
	}
	if err := modify(&elb.ConnectionDraining{Enabled: aws.Bool(true)}); err != nil {
		t.Fatal(err)
	}
	if got := r.cloudLB(t, "a1").Spec.Draining; got == nil || got.Timeout != 300 {
		t.Errorf("draining with no timeout given: the cloud's %+v, want ELB's 300 s", got)
	}
	for _, bad := range []int64{0, 3601} {
		if err := modify(&elb.ConnectionDraining{Enabled: aws.Bool(true), Timeout: aws.Int64(bad)}); code(t, err) != elb.ErrCodeInvalidConfigurationRequestException {
			t.Errorf("timeout %d: %v", bad, err)
		}
	}
	if err := modify(&elb.ConnectionDraining{Enabled: aws.Bool(false)}); err != nil {
		t.Fatal(err)
	}
	if got := r.cloudLB(t, "a1").Spec.Draining; got == nil || got.Enabled {
		t.Errorf("draining turned off: the cloud's %+v", got)
	}
}
