package amazon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// The identities AWS gives an instance and its network, derived from the
// simulated cloud's names so that every caller, every restart and every
// test reaches the same ones.

// hexID is n hex digits naming what, stable for (cluster, what).
func hexID(cluster, what string, n int) string {
	sum := sha256.Sum256([]byte(cluster + "/" + what))
	return hex.EncodeToString(sum[:])[:n]
}

// InstanceID is an instance's EC2 ID: "i-" and 17 hex digits, as EC2's
// long IDs are.
func InstanceID(cluster, name string) string { return "i-" + hexID(cluster, "instance/"+name, 17) }

// ProviderID is the ProviderID the aws providers form for an instance
// (aws:///<zone>/<instance ID>: KubernetesInstanceID in
// legacy-cloud-providers aws/instances.go and cloud-provider-aws
// pkg/providers/v1/instances.go).
func ProviderID(cluster string, in api.Instance) string {
	return "aws:///" + in.Zone + "/" + InstanceID(cluster, in.Name)
}

// PrivateDNSName is the private DNS name EC2 gives an address:
// ip-a-b-c-d.<region>.compute.internal (us-east-1's ec2.internal aside).
func PrivateDNSName(ip, region string) string {
	return "ip-" + strings.ReplaceAll(ip, ".", "-") + "." + region + ".compute.internal"
}

// MAC is the instance's interface address, Docker's form for its IPv4
// address (02:42 and the four bytes).
func MAC(ip string) string {
	v4 := net.ParseIP(ip).To4()
	if v4 == nil {
		return "02:42:00:00:00:00"
	}
	return fmt.Sprintf("02:42:%02x:%02x:%02x:%02x", v4[0], v4[1], v4[2], v4[3])
}

// Network is the cluster's one VPC, a subnet per zone, its route tables
// and its nodes' security group.
type Network struct {
	Cluster, Region string
	// ClusterID names the cluster in its resources' tags: the
	// providers' KubernetesClusterID ("" is Cluster).
	ClusterID string
	Zones     []string
	CIDR      string // the node network's
	// TaggedRouteTables is how many route tables are tagged for the
	// cluster (0 is 1): the VPC's main table, which carries the pod
	// routes, and the rest beside it (routes.go).
	TaggedRouteTables int
	// DHCPDomain is the domain-name of the VPC's DHCP options set ("":
	// AmazonProvidedDNS's, the region's): the metadata service's
	// local-hostname and hostname end in it; EC2's private DNS name does
	// not (Hostname). The node containers' own hostnames are not changed.
	DHCPDomain string
}

func (n Network) VPC() string                  { return "vpc-" + hexID(n.Cluster, "vpc", 17) }
func (n Network) Subnet(zone string) string    { return "subnet-" + hexID(n.Cluster, "subnet/"+zone, 17) }
func (n Network) RouteTable() string           { return "rtb-" + hexID(n.Cluster, "rtb", 17) }
func (n Network) NodeGroup() string            { return "sg-" + hexID(n.Cluster, "sg/nodes", 17) }
func (n Network) Interface(name string) string { return "eni-" + hexID(n.Cluster, "eni/"+name, 17) }

// Hostname is the hostname an instance at ip gets from the VPC's DHCP
// options, which the metadata service's local-hostname and hostname
// answer: EC2's private DNS name under the default options, else its
// first label in the options' domain-name (kube-aws#522 shows
// local-hostname following the options; aws-parallelcluster-cookbook#1127
// shows it holding a custom domain-name, while DescribeInstances'
// PrivateDnsName keeps the region's, kubernetes#11543).
func (n Network) Hostname(ip string) string {
	if n.DHCPDomain == "" {
		return PrivateDNSName(ip, n.Region)
	}
	return "ip-" + strings.ReplaceAll(ip, ".", "-") + "." + n.DHCPDomain
}

// RouteTableIDs are the tables tagged for the cluster, the main one
// first.
func (n Network) RouteTableIDs() []string {
	out := []string{n.RouteTable()}
	for i := 1; i < n.TaggedRouteTables; i++ {
		out = append(out, "rtb-"+hexID(n.Cluster, fmt.Sprintf("rtb/%d", i), 17))
	}
	return out
}

// ClusterTag is the tag that marks a resource as the cluster's
// (TagNameKubernetesClusterPrefix in the providers' tags.go), and "owned"
// its value for what the cluster created.
func (n Network) ClusterTag() string {
	if n.ClusterID != "" {
		return "kubernetes.io/cluster/" + n.ClusterID
	}
	return "kubernetes.io/cluster/" + n.Cluster
}

const owned = "owned"

// internalIPs are an instance's InternalIPs, its primary interface's
// first.
func internalIPs(in api.Instance) []string {
	var out []string
	for _, a := range in.Addresses {
		if a.Type == "InternalIP" {
			out = append(out, a.Address)
		}
	}
	return out
}

// internalIP is an instance's first InternalIP.
func internalIP(in api.Instance) string {
	if ips := internalIPs(in); len(ips) > 0 {
		return ips[0]
	}
	return ""
}

// elbDNSName is a classic ELB's DNS name, as AWS forms it:
// <name>-<id>.<region>.elb.amazonaws.com.
func elbDNSName(n Network, name string) string {
	return name + "-" + hexID(n.Cluster, "elb/"+name, 10) + "." + n.Region + elbDomain
}

const elbDomain = ".elb.amazonaws.com"

// ELBNameOfDNS is the name of the load balancer a DNS name the face gave
// stands for (the part before its ID); ok is false for any other name.
func ELBNameOfDNS(dns string) (name string, ok bool) {
	host, found := strings.CutSuffix(dns, elbDomain)
	if !found {
		return "", false
	}
	label, _, _ := strings.Cut(host, ".")
	i := strings.LastIndex(label, "-")
	if i <= 0 || len(label)-i-1 != 10 {
		return "", false
	}
	return label[:i], true
}
