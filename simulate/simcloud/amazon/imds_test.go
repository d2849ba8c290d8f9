package amazon_test

import (
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/ec2metadata"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/simcloud/amazon"
)

// An instance asks the metadata service who it is, then EC2 about itself:
// the answers agree (the in-tree provider's start, getSelfAWSInstance).
func TestMetadataAgreesWithEC2(t *testing.T) {
	r := newRig(t, t.TempDir())
	srv := httptest.NewServer(r.face.IMDS(true))
	t.Cleanup(srv.Close)
	md := ec2metadata.New(session.Must(session.NewSession(&aws.Config{MaxRetries: aws.Int(0)})), &aws.Config{Endpoint: aws.String(srv.URL)})
	id, err := md.GetMetadata("instance-id")
	if err != nil {
		t.Fatal(err)
	}
	if id != amazon.InstanceID(cluster, "c-local") {
		t.Errorf("instance-id %s: the instance at 127.0.0.1 is c-local", id)
	}
	zone, _ := md.GetMetadata("placement/availability-zone")
	hostname, _ := md.GetMetadata("local-hostname")
	out, err := r.ec2(kcm).DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{id})})
	if err != nil {
		t.Fatal(err)
	}
	self := out.Reservations[0].Instances[0]
	if *self.Placement.AvailabilityZone != zone || *self.PrivateDnsName != hostname {
		t.Errorf("metadata says %s in %s; EC2 says %s in %s", hostname, zone, *self.PrivateDnsName, *self.Placement.AvailabilityZone)
	}
	if region, err := md.Region(); err != nil || region != "sim-region-1" {
		t.Errorf("region %q, %v", region, err)
	}
}
