package amazon_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	"github.com/aws/aws-sdk-go/aws/credentials"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

const (
	cluster = "c"
	region  = "sim-region-1"
	token   = "rig-token"
	// adminToken is the host's, for the rig's admin calls.
	adminToken = "rig-admin-token"
)

var (
	kcm = awsapi.Key{ID: "AKIAKCM", Secret: "kcm-secret", Principal: "kube-controller-manager"}
	ccm = awsapi.Key{ID: "AKIACCM", Secret: "ccm-secret", Principal: "cloud-controller-manager"}
)

// backends are the cloud's machines and network, in memory.
type backends struct {
	mu        sync.Mutex
	instances []api.Instance
	routes    []api.Route
	// configured is each load balancer's spec, each time the cloud
	// handed it its configuration.
	configured map[string][]api.LoadBalancerSpec
}

func (b *backends) List(context.Context) ([]api.Instance, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]api.Instance(nil), b.instances...), nil
}
func (b *backends) Terminate(context.Context, string) error { return nil }
func (b *backends) Ensure(_ context.Context, lb api.LoadBalancer) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.configured == nil {
		b.configured = map[string][]api.LoadBalancerSpec{}
	}
	b.configured[lb.Name] = append(b.configured[lb.Name], lb.Spec)
	return "172.18.0.200", nil
}
func (b *backends) Delete(context.Context, string) error { return nil }
func (b *backends) Sync(_ context.Context, routes []api.Route) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.routes = routes
	return nil
}

// rig is a simulated cloud with its AWS face.
type rig struct {
	cloud   *cloudserver.Server
	cloudAt string
	face    *amazon.Face
	awsAt   string
	back    *backends
	mu      sync.Mutex
	records []awsapi.Record
}

// instance is a running instance; more are the addresses of further
// interfaces.
func instance(name, zone, ip string, more ...string) api.Instance {
	in := api.Instance{Name: name, Type: "m5.large", Region: region, Zone: zone, State: api.StateRunning,
		Addresses: []api.Address{{Type: "InternalIP", Address: ip}}}
	for _, m := range more {
		in.Addresses = append(in.Addresses, api.Address{Type: "InternalIP", Address: m})
	}
	return in
}

// registryKey signs the rig's registry passwords.
var registryKey = []byte("the rig's registry key")

// localSecondIP is the address of the local instance's second interface.
const localSecondIP = "10.0.0.9"

func newRig(t *testing.T, dir string, with ...func(*amazon.Options)) *rig {
	t.Helper()
	return newRigWith(t, dir, func(*cloudserver.Options) {}, with...)
}

// newRigWith is newRig with the cloud's options changed by cloud first.
func newRigWith(t *testing.T, dir string, cloud func(*cloudserver.Options), with ...func(*amazon.Options)) *rig {
	t.Helper()
	r := &rig{back: &backends{instances: []api.Instance{instance("c-control-plane", region+"a", "172.18.0.2"),
		instance("c-worker", region+"b", "172.18.0.3"), instance("c-local", region+"c", "127.0.0.1", localSecondIP)}}}
	co := cloudserver.Options{Backends: cloudserver.Backends{Instances: r.back, LoadBalancers: r.back, Routes: r.back},
		StatePath: filepath.Join(dir, "state.json"), AuditPath: filepath.Join(dir, "audit.jsonl"), Token: token, AdminToken: adminToken}
	cloud(&co)
	s, err := cloudserver.New(co)
	if err != nil {
		t.Fatal(err)
	}
	cs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { cs.Close(); s.Close() })
	r.cloud, r.cloudAt = s, cs.URL
	client := amazon.LocalCloud(s.Handler(), token)
	o := amazon.Options{Cloud: client, StatePath: filepath.Join(dir, "aws.json"),
		Network: amazon.Network{Cluster: cluster, Region: region, Zones: []string{region + "a", region + "b", region + "c"}, CIDR: "172.18.0.0/16"},
		Keys:    awsapi.Keys{kcm.ID: kcm, ccm.ID: ccm}, TokenKey: registryKey, DropTraffic: s.DropTraffic,
		Record: func(rec awsapi.Record) { r.mu.Lock(); r.records = append(r.records, rec); r.mu.Unlock() }}
	for _, w := range with {
		w(&o)
	}
	r.face, err = amazon.New(o)
	if err != nil {
		t.Fatal(err)
	}
	r.awsAt = serve(t, r.face)
	return r
}

// serve serves a face's AWS APIs for the test.
func serve(t *testing.T, f *amazon.Face) string {
	t.Helper()
	s := httptest.NewServer(f.Handler())
	t.Cleanup(s.Close)
	return s.URL
}

// ec2 is the SDK's EC2 client as a provider configures it with a
// [ServiceOverride] for ec2.
func (r *rig) ec2(key awsapi.Key) *ec2.EC2 {
	return ec2.New(session.Must(r.session(key)), &aws.Config{Endpoint: aws.String(r.awsAt + "/ec2")})
}

// session is the SDK session a provider builds: static credentials, the
// cloud's region, no retries (so each refusal is one call).
func (r *rig) session(key awsapi.Key) (*session.Session, error) {
	return session.NewSession(&aws.Config{Region: aws.String(region), MaxRetries: aws.Int(0),
		Credentials: credentials.NewStaticCredentials(key.ID, key.Secret, "")})
}

// calls are the AWS calls answered so far.
func (r *rig) calls() []awsapi.Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]awsapi.Record(nil), r.records...)
}

func (r *rig) admin() *api.Client {
	c := api.NewClient(r.cloudAt, "handover")
	c.Token = adminToken
	return c
}

func code(t *testing.T, err error) string {
	t.Helper()
	var ae awserr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("want an AWS error, got %v", err)
	}
	return ae.Code()
}

func TestDescribeInstancesAsTheProvidersAsk(t *testing.T) {
	r := newRig(t, t.TempDir())
	c := r.ec2(kcm)
	worker := amazon.InstanceID(cluster, "c-worker")
	out, err := c.DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{worker})})
	if err != nil {
		t.Fatal(err)
	}
	in := out.Reservations[0].Instances[0]
	if *in.PrivateDnsName != "ip-172-18-0-3.sim-region-1.compute.internal" || *in.Placement.AvailabilityZone != region+"b" ||
		*in.NetworkInterfaces[0].PrivateIpAddresses[0].PrivateIpAddress != "172.18.0.3" || *in.State.Name != "running" {
		t.Errorf("the worker: %v", in)
	}
	// By private DNS name, as getInstancesByNodeNames asks, with the
	// cluster's tag and the running state.
	out, err = c.DescribeInstances(&ec2.DescribeInstancesInput{Filters: []*ec2.Filter{
		{Name: aws.String("private-dns-name"), Values: aws.StringSlice([]string{"ip-172-18-0-2.sim-region-1.compute.internal"})},
		{Name: aws.String("instance-state-name"), Values: aws.StringSlice([]string{"running"})},
		{Name: aws.String("tag-key"), Values: aws.StringSlice([]string{"kubernetes.io/cluster/" + cluster})},
	}})
	if err != nil || len(out.Reservations) != 1 || *out.Reservations[0].Instances[0].InstanceId != amazon.InstanceID(cluster, "c-control-plane") {
		t.Errorf("by private DNS name: %v, %v", out, err)
	}
	if _, err := c.DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{"i-00000000000000000"})}); code(t, err) != "InvalidInstanceID.NotFound" {
		t.Errorf("an unknown ID: %v", err)
	}
	if _, err := c.DescribeInstances(&ec2.DescribeInstancesInput{Filters: []*ec2.Filter{{Name: aws.String("colour"), Values: aws.StringSlice([]string{"x"})}}}); code(t, err) != "InvalidParameterValue" {
		t.Errorf("an unknown filter: %v", err)
	}
}

// A manager's AWS calls reach the cloud as that manager: its audit names
// it, and the cloud's knobs refuse it with EC2's codes.
func TestTheCloudsKnobsReachAWSCallers(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	if err := r.admin().SetFaults(ctx, api.Faults{Deny: map[string][]string{"kube-controller-manager": {"CreateRoute"}},
		Scope: map[string]string{"cloud-controller-manager": "sim-region-2"}}); err != nil {
		t.Fatal(err)
	}
	worker := amazon.InstanceID(cluster, "c-worker")
	rtb := amazon.Network{Cluster: cluster}.RouteTable()
	_, err := r.ec2(kcm).CreateRoute(&ec2.CreateRouteInput{RouteTableId: aws.String(rtb), DestinationCidrBlock: aws.String("10.244.1.0/24"), InstanceId: aws.String(worker)})
	if got := code(t, err); got != "UnauthorizedOperation" {
		t.Errorf("denied CreateRoute: %s", got)
	}
	_, err = r.ec2(ccm).DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{worker})})
	if got := code(t, err); got != "InvalidInstanceID.NotFound" {
		t.Errorf("an instance outside the CCM's region: %s", got)
	}
	audit, err := r.admin().Audit(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var denied bool
	for _, e := range audit {
		if e.Component == "kube-controller-manager" && e.Operation == "CreateRoute" && e.Fault == "deny" && e.Controller == "ec2:CreateRoute" {
			denied = true
		}
	}
	if !denied {
		t.Errorf("the cloud's audit has no denied CreateRoute by kube-controller-manager: %+v", audit)
	}
}
