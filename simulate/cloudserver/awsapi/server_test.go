package awsapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/awserr"
	"github.com/aws/aws-sdk-go/aws/credentials"
	"github.com/aws/aws-sdk-go/aws/session"
	v4 "github.com/aws/aws-sdk-go/aws/signer/v4"
	"github.com/aws/aws-sdk-go/service/ec2"
	"github.com/aws/aws-sdk-go/service/elb"
)

const testRegion = "sim-region-1"

var testKey = Key{ID: "AKIASIMULATEDKCM0001", Secret: "s3cr3t/with+chars", Principal: "kube-controller-manager"}

// testServer serves a small EC2 and ELB and records every call.
type testServer struct {
	*httptest.Server
	mu      sync.Mutex
	records []Record
	gate    func(Call, Refusals) *Error
	// terminated: the instances TerminateInstances was answered for.
	terminated []string
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	ts := &testServer{}
	ec2Svc := Service{Name: "ec2", Protocol: EC2Query, Namespace: "http://ec2.amazonaws.com/doc/2016-11-15/",
		Refusals: Refusals{Throttled: Error{Status: 503, Code: "RequestLimitExceeded", Message: "Request limit exceeded."}},
		Actions: []Action{Op("DescribeInstances", func(_ context.Context, c Call, in *ec2.DescribeInstancesInput) (*ec2.DescribeInstancesOutput, error) {
			var out []*ec2.Instance
			for _, id := range in.InstanceIds {
				if *id == "i-missing" {
					return nil, Errorf("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", *id)
				}
				out = append(out, &ec2.Instance{InstanceId: id, PrivateDnsName: aws.String("ip-10-0-0-1.sim-region-1.compute.internal"),
					Tags: []*ec2.Tag{{Key: aws.String("caller"), Value: aws.String(c.Key.Principal)}}})
			}
			return &ec2.DescribeInstancesOutput{Reservations: []*ec2.Reservation{{Instances: out}}}, nil
		}), Op("TerminateInstances", func(_ context.Context, _ Call, in *ec2.TerminateInstancesInput) (*ec2.TerminateInstancesOutput, error) {
			ts.mu.Lock()
			defer ts.mu.Unlock()
			ts.terminated = append(ts.terminated, aws.StringValueSlice(in.InstanceIds)...)
			return &ec2.TerminateInstancesOutput{}, nil
		})}}
	elbSvc := Service{Name: "elasticloadbalancing", Protocol: Query, Namespace: "http://elasticloadbalancing.amazonaws.com/doc/2012-06-01/",
		Actions: []Action{Op("DescribeLoadBalancers", func(_ context.Context, _ Call, in *elb.DescribeLoadBalancersInput) (*elb.DescribeLoadBalancersOutput, error) {
			var out []*elb.LoadBalancerDescription
			for _, n := range in.LoadBalancerNames {
				out = append(out, &elb.LoadBalancerDescription{LoadBalancerName: n, DNSName: aws.String(*n + ".elb.example"),
					ListenerDescriptions: []*elb.ListenerDescription{{Listener: &elb.Listener{LoadBalancerPort: aws.Int64(80), InstancePort: aws.Int64(30080), Protocol: aws.String("TCP")}}}})
			}
			return &elb.DescribeLoadBalancersOutput{LoadBalancerDescriptions: out}, nil
		})}}
	srv, err := NewServer(Options{Region: testRegion, Keys: Keys{testKey.ID: testKey},
		Gate: func(_ context.Context, c Call, r Refusals) *Error {
			if ts.gate != nil {
				return ts.gate(c, r)
			}
			return nil
		},
		Record: func(r Record) { ts.mu.Lock(); ts.records = append(ts.records, r); ts.mu.Unlock() }}, ec2Svc, elbSvc)
	if err != nil {
		t.Fatal(err)
	}
	ts.Server = httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}

func (ts *testServer) last() Record {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.records[len(ts.records)-1]
}

// session is an SDK session as a provider builds one: static credentials,
// a region, the service's endpoint overridden, no retries (so each refusal
// is one call).
func (ts *testServer) session(t *testing.T, key Key, region string) *session.Session {
	t.Helper()
	return session.Must(session.NewSession(&aws.Config{Region: aws.String(region), MaxRetries: aws.Int(0),
		Credentials: credentials.NewStaticCredentials(key.ID, key.Secret, "")}))
}

func (ts *testServer) ec2(t *testing.T, key Key, region string) *ec2.EC2 {
	return ec2.New(ts.session(t, key, region), &aws.Config{Endpoint: aws.String(ts.URL + "/ec2")})
}

func TestSDKClientsTalkToTheServer(t *testing.T) {
	ts := newTestServer(t)
	out, err := ts.ec2(t, testKey, testRegion).DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{"i-0123", "i-4567"})})
	if err != nil {
		t.Fatal(err)
	}
	got := out.Reservations[0].Instances
	if len(got) != 2 || *got[1].InstanceId != "i-4567" || *got[0].Tags[0].Value != "kube-controller-manager" {
		t.Errorf("DescribeInstances answered %v", out)
	}
	if r := ts.last(); r.Service != "ec2" || r.Action != "DescribeInstances" || r.Principal != testKey.Principal || r.Status != 200 {
		t.Errorf("recorded %+v", r)
	}
	lbs, err := elb.New(ts.session(t, testKey, testRegion), &aws.Config{Endpoint: aws.String(ts.URL + "/elasticloadbalancing")}).
		DescribeLoadBalancers(&elb.DescribeLoadBalancersInput{LoadBalancerNames: aws.StringSlice([]string{"a1b2"})})
	if err != nil {
		t.Fatal(err)
	}
	if d := lbs.LoadBalancerDescriptions; len(d) != 1 || *d[0].ListenerDescriptions[0].Listener.InstancePort != 30080 {
		t.Errorf("DescribeLoadBalancers answered %v", lbs)
	}
}

// awsCode is the error code an SDK call failed with, and its status.
func awsCode(t *testing.T, err error) (string, int) {
	t.Helper()
	var rf awserr.RequestFailure
	if !errors.As(err, &rf) {
		t.Fatalf("want an AWS request failure, got %v", err)
	}
	return rf.Code(), rf.StatusCode()
}

func TestRefusalsReachTheSDKAsAWSErrors(t *testing.T) {
	ts := newTestServer(t)
	other := testKey
	other.Secret = "not-the-secret"
	unknown := testKey
	unknown.ID = "AKIANOBODY"
	cases := []struct {
		name   string
		call   func() error
		code   string
		status int
	}{
		{"wrong secret", func() error {
			_, err := ts.ec2(t, other, testRegion).DescribeInstances(&ec2.DescribeInstancesInput{})
			return err
		}, "SignatureDoesNotMatch", 403},
		{"unknown key", func() error {
			_, err := ts.ec2(t, unknown, testRegion).DescribeInstances(&ec2.DescribeInstancesInput{})
			return err
		}, "InvalidClientTokenId", 403},
		{"other region", func() error {
			_, err := ts.ec2(t, testKey, "us-east-1").DescribeInstances(&ec2.DescribeInstancesInput{})
			return err
		}, "IncompleteSignature", 400},
		{"no credentials", func() error {
			c := ec2.New(session.Must(session.NewSession(&aws.Config{Region: aws.String(testRegion), MaxRetries: aws.Int(0),
				Credentials: credentials.AnonymousCredentials})), &aws.Config{Endpoint: aws.String(ts.URL + "/ec2")})
			_, err := c.DescribeInstances(&ec2.DescribeInstancesInput{})
			return err
		}, "MissingAuthenticationToken", 403},
		{"unimplemented action", func() error {
			_, err := ts.ec2(t, testKey, testRegion).DescribeVolumes(&ec2.DescribeVolumesInput{})
			return err
		}, "InvalidAction", 400},
		{"action's own error", func() error {
			_, err := ts.ec2(t, testKey, testRegion).DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{"i-missing"})})
			return err
		}, "InvalidInstanceID.NotFound", 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, status := awsCode(t, c.call())
			if code != c.code || status != c.status {
				t.Errorf("got %s (%d), want %s (%d)", code, status, c.code, c.status)
			}
			if r := ts.last(); r.Code != c.code || r.Unimplemented != (c.code == "InvalidAction") {
				t.Errorf("recorded %+v", r)
			}
		})
	}
}

func TestGateRefusesWithTheServicesCode(t *testing.T) {
	ts := newTestServer(t)
	ts.gate = func(c Call, r Refusals) *Error {
		e := r.Throttled
		e.Fault = "throttle"
		return &e
	}
	_, err := ts.ec2(t, testKey, testRegion).DescribeInstances(&ec2.DescribeInstancesInput{})
	if code, status := awsCode(t, err); code != "RequestLimitExceeded" || status != 503 {
		t.Errorf("got %s (%d)", code, status)
	}
	if r := ts.last(); r.Fault != "throttle" || r.Principal != testKey.Principal {
		t.Errorf("recorded %+v", r)
	}
}

// signed is a request signed by aws-sdk-go's own v4 signer at when.
func signed(t *testing.T, method, url, body string, key Key, when time.Time) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	return sign(t, req, body, key, when)
}

// sign signs req, whose body is body, with aws-sdk-go's v4 signer.
func sign(t *testing.T, req *http.Request, body string, key Key, when time.Time) *http.Request {
	t.Helper()
	if _, err := v4.NewSigner(credentials.NewStaticCredentials(key.ID, key.Secret, "")).Sign(req, strings.NewReader(body), "ec2", testRegion, when); err != nil {
		t.Fatal(err)
	}
	return req
}

func TestSignaturesAsTheSDKSignsThem(t *testing.T) {
	ts := newTestServer(t)
	cases := []struct {
		name   string
		req    *http.Request
		status int
	}{
		{"parameters in the query string", signed(t, "GET", ts.URL+"/ec2/?Action=DescribeInstances&Version=2016-11-15&InstanceId.1=i-a%20b&InstanceId.2=i-%2Bc", "", testKey, time.Now()), 200},
		{"a body with every character", signed(t, "POST", ts.URL+"/ec2/", "Action=DescribeInstances&InstanceId.1=i-%C3%A9%26%3D%2B%2F~", testKey, time.Now()), 200},
		{"signed 20 minutes ago", signed(t, "POST", ts.URL+"/ec2/", "Action=DescribeInstances", testKey, time.Now().Add(-20*time.Minute)), 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, err := http.DefaultClient.Do(c.req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Errorf("status %d (%+v)", resp.StatusCode, ts.last())
			}
		})
	}
	if r := ts.last(); r.Code != "RequestExpired" {
		t.Errorf("the late request recorded %+v", r)
	}
	// A body changed after signing no longer matches.
	req := signed(t, "POST", ts.URL+"/ec2/", "Action=DescribeInstances", testKey, time.Now())
	req.Body = io.NopCloser(strings.NewReader("Action=DescribeVolumes"))
	req.ContentLength = int64(len("Action=DescribeVolumes"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r := ts.last(); resp.StatusCode != 403 || r.Code != "SignatureDoesNotMatch" {
		t.Errorf("a changed body: %d %+v", resp.StatusCode, r)
	}
}

func TestUnknownServiceIsNotFound(t *testing.T) {
	ts := newTestServer(t)
	resp, err := http.Post(ts.URL+"/s3/", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status %d", resp.StatusCode)
	}
}
