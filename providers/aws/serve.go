package aws

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
)

// The cloud's AWS face, as `simcloud serve` serves it from the flags
// Prepare gives: EC2 and classic ELB, the instance metadata service, and
// the AWS APIs over TLS, where ECR's credential callers reach them.

var _ cloudserver.Face = Provider{}

// FaceHelp is serve's paragraph on the AWS face.
func (Provider) FaceHelp() string {
	return `With --aws-keys the same cloud is also served as AWS serves it, for the aws
providers' own code: EC2 and classic Elastic Load Balancing on --aws-listen
(requests signed with Signature Version 4 by the keys in the file, each key
calling as the component it was issued to, so the audit and the fault knobs
apply), and the instance metadata service on --imds-listen. Every AWS call is
logged to aws-calls.jsonl in --state-dir, an action the cloud does not serve
among them (answered InvalidAction, as AWS answers it).`
}

// faceFlags serve the AWS APIs beside the cloud's own.
type faceFlags struct {
	keys, nodeNetwork  string
	clusterID          string
	routeTables        int
	dhcpDomain         string
	listen, imdsListen []string
	imdsRequireToken   bool
	policies           []string // PRINCIPAL=FILE
	// The AWS APIs over TLS, where ECR's credential callers reach them
	// (its tokens are credentials: never sent in the clear).
	tlsListen       []string
	tlsCert, tlsKey string
}

// FaceFlags adds the AWS face's flags to serve's.
func (Provider) FaceFlags(f *pflag.FlagSet) cloudserver.FaceFlags {
	a := &faceFlags{}
	f.StringVar(&a.keys, "aws-keys", "", "serve the AWS APIs (EC2, classic ELB) to the access keys in this file (JSON, root only), each signing as the component (and node) it names; the file is read again when replaced: a key added is served, one removed refused, from the next call on; a terminated instance's node keys are refused")
	f.StringArrayVar(&a.listen, "aws-listen", nil, "address to serve the AWS APIs on, at /ec2/ and /elasticloadbalancing/ (repeatable)")
	f.StringArrayVar(&a.imdsListen, "imds-listen", nil, "address to serve the instance metadata service on, answering each node by its address (repeatable)")
	f.StringArrayVar(&a.tlsListen, "aws-tls-listen", nil, "address to serve the AWS APIs on over TLS (repeatable): also at /, by X-Amz-Target, as ECR answers at its default endpoint")
	f.StringVar(&a.tlsCert, "aws-tls-cert", "", "PEM certificate (chain) of the --aws-tls-listen server")
	f.StringVar(&a.tlsKey, "aws-tls-key", "", "PEM private key of the --aws-tls-listen server")
	f.BoolVar(&a.imdsRequireToken, "imds-require-token", false, "require IMDSv2 session tokens of the metadata service's callers")
	f.StringArrayVar(&a.policies, "aws-iam-policy", nil, "PRINCIPAL=FILE: the IAM policy (JSON) the keys of that component (kube-controller-manager, cloud-controller-manager, kubelet) sign under; a call it does not allow is refused as AWS refuses it, and the audit holds the refusal (repeatable; a component without one may make every call)")
	f.StringVar(&a.nodeNetwork, "node-network", "", "the nodes' network (the VPC's CIDR), e.g. the kind network's subnet")
	f.IntVar(&a.routeTables, "aws-route-tables", 1, "how many route tables are tagged for the cluster: the VPC's main one, which carries the pod routes, and the rest associated with no subnet, as a table a tool tagged and left (the providers then refuse to pick one unless their cloud-config names it: RouteTableID)")
	f.StringVar(&a.dhcpDomain, "aws-dhcp-domain", "", "the domain-name of the VPC's DHCP options: the metadata service's local-hostname and hostname end in it, while EC2's private DNS names keep the region's (default: the region's)")
	f.StringVar(&a.clusterID, "aws-cluster-id", "", "the cluster ID the cluster's resources are tagged with (kubernetes.io/cluster/ID; default: the cluster's name)")
	return a
}

func (a *faceFlags) RequiredTogether() [][]string {
	return [][]string{{"aws-keys", "aws-listen", "node-network"}, {"aws-tls-listen", "aws-tls-cert", "aws-tls-key"}}
}

func (a *faceFlags) Listens() map[string][]string {
	return map[string][]string{"--aws-listen": a.listen, "--imds-listen": a.imdsListen, "--aws-tls-listen": a.tlsListen}
}

// Asked: the AWS APIs are asked for; their flags without --aws-keys are
// a mistake the command refuses.
func (a *faceFlags) Asked() (bool, error) {
	if a.keys == "" {
		if len(a.imdsListen) > 0 || a.imdsRequireToken || len(a.tlsListen) > 0 || len(a.policies) > 0 {
			return false, errors.New("--imds-listen, --imds-require-token, --aws-tls-listen and --aws-iam-policy need --aws-keys: they serve the AWS face")
		}
		return false, nil
	}
	if _, _, err := net.ParseCIDR(a.nodeNetwork); err != nil {
		return false, fmt.Errorf("--node-network: %w", err)
	}
	if errs := validation.IsDNS1123Subdomain(a.dhcpDomain); a.dhcpDomain != "" && len(errs) > 0 {
		return false, fmt.Errorf("--aws-dhcp-domain %q: %s", a.dhcpDomain, strings.Join(errs, "; "))
	}
	if a.routeTables < 1 || a.routeTables > cloudcluster.MaxRouteTables {
		return false, fmt.Errorf("--aws-route-tables %d: give 1 to %d (a VPC holds at most 200 route tables; a cluster's shape needs few)", a.routeTables, cloudcluster.MaxRouteTables)
	}
	return true, nil
}

// Open makes the AWS face over the cloud: its APIs, and the metadata
// service and the APIs over TLS where the flags ask.
func (a *faceFlags) Open(in cloudserver.FaceInput) (cloudserver.OpenFace, error) {
	keys, err := amazon.OpenKeyFile(a.keys)
	if err != nil {
		return cloudserver.OpenFace{}, err
	}
	tlsCfg, err := a.tlsConfig()
	if err != nil {
		return cloudserver.OpenFace{}, err
	}
	policies, err := readPolicies(a.policies)
	if err != nil {
		return cloudserver.OpenFace{}, err
	}
	calls, err := amazon.OpenCallLog(filepath.Join(in.StateDir, amazon.CallLogFile))
	if err != nil {
		return cloudserver.OpenFace{}, err
	}
	s := in.Cloud
	face, err := amazon.New(amazon.Options{Cloud: amazon.LocalCloud(s.Handler(), in.Token), Keys: keys, Terminated: s.Terminated, TokenKey: in.RegistryKey,
		Network:   amazon.Network{Cluster: in.Cluster, ClusterID: a.clusterID, Region: cloudserver.Region, Zones: cloudserver.Zones(), CIDR: a.nodeNetwork, TaggedRouteTables: a.routeTables, DHCPDomain: a.dhcpDomain},
		StatePath: filepath.Join(in.StateDir, "aws-state.json"), Record: calls.Record, DropTraffic: s.DropTraffic, Logf: log.Printf, Policies: policies})
	if err != nil {
		calls.Close()
		return cloudserver.OpenFace{}, err
	}
	return cloudserver.OpenFace{Endpoints: a.endpoints(face, tlsCfg), Close: calls.Close}, nil
}

func (a *faceFlags) tlsConfig() (*tls.Config, error) {
	if len(a.tlsListen) == 0 {
		return nil, nil
	}
	pair, err := tls.LoadX509KeyPair(a.tlsCert, a.tlsKey)
	if err != nil {
		return nil, fmt.Errorf("--aws-tls-cert/--aws-tls-key: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

// endpoints are the face's handlers, each on the addresses its flag gives.
func (a *faceFlags) endpoints(face *amazon.Face, tlsCfg *tls.Config) []cloudserver.Endpoint {
	out := []cloudserver.Endpoint{{Handler: face.Handler(), Addrs: a.listen, What: "the AWS APIs"}}
	if len(a.imdsListen) > 0 {
		out = append(out, cloudserver.Endpoint{Handler: face.IMDS(a.imdsRequireToken), Addrs: a.imdsListen, What: "the instance metadata service"})
	}
	if len(a.tlsListen) > 0 {
		out = append(out, cloudserver.Endpoint{Handler: face.Handler(), Addrs: a.tlsListen, What: "the AWS APIs over TLS", TLS: tlsCfg})
	}
	return out
}
