package amazon_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/client"
	"github.com/aws/aws-sdk-go/aws/request"
	"github.com/aws/aws-sdk-go/service/ec2"
	"github.com/aws/aws-sdk-go/service/ecr"
	"github.com/aws/aws-sdk-go/service/elb"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// Every action the face serves meets the cloud's knobs, once: under an
// outage each is refused with its service's code, and the cloud's audit
// holds exactly one refused call per AWS call, under the action's name or
// the cloud operation it reached. A denied action the face answers from
// its own state (ec2:DescribeSubnets) is refused as EC2 refuses, where it
// was answered before.
func TestEveryActionMeetsTheKnobs(t *testing.T) {
	r := newRig(t, t.TempDir())
	ctx := context.Background()
	if _, err := r.ec2(kcm).DescribeSubnets(&ec2.DescribeSubnetsInput{}); err != nil {
		t.Fatalf("DescribeSubnets before any knob: %v", err)
	}
	if err := r.admin().SetFaults(ctx, api.Faults{Deny: map[string][]string{"kube-controller-manager": {"ec2:DescribeSubnets"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.ec2(kcm).DescribeSubnets(&ec2.DescribeSubnetsInput{}); code(t, err) != "UnauthorizedOperation" {
		t.Errorf("a denied DescribeSubnets: %v", err)
	}
	if _, err := r.ec2(ccm).DescribeSubnets(&ec2.DescribeSubnetsInput{}); err != nil {
		t.Errorf("another caller's DescribeSubnets: %v", err)
	}
	if err := r.admin().SetFaults(ctx, api.Faults{Outages: []api.Window{{Start: time.Now().Add(-time.Second), End: time.Now().Add(time.Hour)}}}); err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	sess, err := r.session(kcm)
	if err != nil {
		t.Fatal(err)
	}
	overTLS := &aws.Config{HTTPClient: atDefaultEndpoint(t, r.face.Handler())}
	clients := map[string]*client.Client{
		"ec2":                  ec2.New(sess, &aws.Config{Endpoint: aws.String(r.awsAt + "/ec2")}).Client,
		"elasticloadbalancing": elb.New(sess, &aws.Config{Endpoint: aws.String(r.awsAt + "/elasticloadbalancing")}).Client,
		"ecr":                  ecr.New(sess, overTLS).Client,
	}
	for service, actions := range r.face.Actions() {
		for _, action := range actions {
			req := clients[service].NewRequest(&request.Operation{Name: action, HTTPMethod: http.MethodPost, HTTPPath: "/"}, &struct{}{}, &struct{}{})
			err := req.Send()
			if req.HTTPResponse == nil || req.HTTPResponse.StatusCode < 500 {
				t.Errorf("%s:%s under an outage: %v", service, action, err)
			}
		}
	}
	audit, err := r.admin().Audit(ctx, since)
	if err != nil {
		t.Fatal(err)
	}
	refused := map[string]int{}
	for _, e := range audit {
		if e.Fault == "outage" {
			refused[e.Controller]++
		}
	}
	for service, actions := range r.face.Actions() {
		for _, action := range actions {
			if n := refused[service+":"+action]; n != 1 {
				t.Errorf("%s:%s: %d calls refused in the cloud's audit, want 1", service, action, n)
			}
		}
	}
}
