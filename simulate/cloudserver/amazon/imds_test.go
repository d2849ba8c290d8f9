package amazon_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go/aws"
	"github.com/aws/aws-sdk-go/aws/ec2metadata"
	"github.com/aws/aws-sdk-go/aws/session"
	"github.com/aws/aws-sdk-go/service/ec2"

	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
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

// In a VPC whose DHCP options name a domain, the metadata service's
// hostnames end in it and EC2's private DNS name does not: the names the
// in-tree kubelet and the external manager read part.
func TestDHCPDomainPartsTheNames(t *testing.T) {
	r := newRig(t, t.TempDir(), func(o *amazon.Options) { o.Network.DHCPDomain = "corp.example" })
	srv := httptest.NewServer(r.face.IMDS(true))
	t.Cleanup(srv.Close)
	md := ec2metadata.New(session.Must(session.NewSession(&aws.Config{MaxRetries: aws.Int(0)})), &aws.Config{Endpoint: aws.String(srv.URL)})
	for _, path := range []string{"local-hostname", "hostname"} {
		if got, err := md.GetMetadata(path); err != nil || got != "ip-127-0-0-1.corp.example" {
			t.Errorf("%s: %q, %v", path, got, err)
		}
	}
	out, err := r.ec2(kcm).DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{amazon.InstanceID(cluster, "c-local")})})
	if err != nil {
		t.Fatal(err)
	}
	if got := *out.Reservations[0].Instances[0].PrivateDnsName; got != amazon.PrivateDNSName("127.0.0.1", "sim-region-1") {
		t.Errorf("EC2's private DNS name %q", got)
	}
}

// An instance with a second interface: the metadata service lists each
// MAC with its device-number, EC2 describes the later interface first
// with its device index, DescribeNetworkInterfaces lists both, and EC2
// refuses what it does by instance ID only for one interface.
func TestSecondInterface(t *testing.T) {
	r := newRig(t, t.TempDir())
	srv := httptest.NewServer(r.face.IMDS(false))
	t.Cleanup(srv.Close)
	md := ec2metadata.New(session.Must(session.NewSession(&aws.Config{MaxRetries: aws.Int(0)})), &aws.Config{Endpoint: aws.String(srv.URL)})
	for mac, want := range map[string]string{amazon.MAC("127.0.0.1"): "0", amazon.MAC(localSecondIP): "1"} {
		if got, err := md.GetMetadata("network/interfaces/macs/" + mac + "/device-number"); err != nil || got != want {
			t.Errorf("device-number of %s: %q, %v; want %s", mac, got, err, want)
		}
	}
	id := amazon.InstanceID(cluster, "c-local")
	c := r.ec2(kcm)
	out, err := c.DescribeInstances(&ec2.DescribeInstancesInput{InstanceIds: aws.StringSlice([]string{id})})
	if err != nil {
		t.Fatal(err)
	}
	self := out.Reservations[0].Instances[0]
	var order []string
	for _, ni := range self.NetworkInterfaces {
		order = append(order, fmt.Sprintf("%s@%d", *ni.PrivateIpAddress, *ni.Attachment.DeviceIndex))
	}
	if strings.Join(order, " ") != localSecondIP+"@1 127.0.0.1@0" || *self.PrivateIpAddress != "127.0.0.1" {
		t.Errorf("interfaces %v, private address %s", order, *self.PrivateIpAddress)
	}
	nis, err := c.DescribeNetworkInterfaces(&ec2.DescribeNetworkInterfacesInput{Filters: []*ec2.Filter{
		{Name: aws.String("attachment.instance-id"), Values: aws.StringSlice([]string{id})}}})
	if err != nil || len(nis.NetworkInterfaces) != 2 || *nis.NetworkInterfaces[0].NetworkInterfaceId == *nis.NetworkInterfaces[1].NetworkInterfaceId {
		t.Errorf("DescribeNetworkInterfaces: %v, %v", nis, err)
	}
	if _, err := c.ModifyInstanceAttribute(&ec2.ModifyInstanceAttributeInput{InstanceId: aws.String(id),
		SourceDestCheck: &ec2.AttributeBooleanValue{Value: aws.Bool(false)}}); code(t, err) != "InvalidInstanceID" {
		t.Errorf("source/dest check of an instance with two interfaces: %v", err)
	}
}
