package awsconfig

// The CloudConfig struct of each release, field for field (names, types
// and order; the comments are dropped): TestStructsHoldToTheirSource
// compares each with the release's source. Global comes first.

// legacy026 is k8s.io/legacy-cloud-providers aws/aws.go, v0.26.x: the
// in-tree provider of Kubernetes 1.26, the last with one.
type legacy026 struct {
	Global struct {
		Zone                        string
		VPC                         string
		SubnetID                    string
		RouteTableID                string
		RoleARN                     string
		KubernetesClusterTag        string
		KubernetesClusterID         string
		DisableSecurityGroupIngress bool
		ElbSecurityGroup            string
		DisableStrictZoneCheck      bool
	}
	ServiceOverride serviceOverrides
}

// ccm126 is k8s.io/cloud-provider-aws pkg/providers/v1/aws.go, v1.26.x:
// the in-tree fields, DisableStrictZoneCheck among them, and
// NodeIPFamilies.
type ccm126 struct {
	Global struct {
		Zone                        string
		VPC                         string
		SubnetID                    string
		RouteTableID                string
		RoleARN                     string
		KubernetesClusterTag        string
		KubernetesClusterID         string
		DisableSecurityGroupIngress bool
		ElbSecurityGroup            string
		DisableStrictZoneCheck      bool
		NodeIPFamilies              []string
	}
	ServiceOverride serviceOverrides
}

// ccm127 is the same file at v1.27.x: Region is added and
// DisableStrictZoneCheck is gone, so a file that sets it is refused.
type ccm127 struct {
	Global struct {
		Zone                        string
		Region                      string
		VPC                         string
		SubnetID                    string
		RouteTableID                string
		RoleARN                     string
		KubernetesClusterTag        string
		KubernetesClusterID         string
		DisableSecurityGroupIngress bool
		ElbSecurityGroup            string
		NodeIPFamilies              []string
	}
	ServiceOverride serviceOverrides
}

// reader makes an empty struct of one release for gcfg to fill.
type reader struct {
	new func() any
	// source is the module@version and file the struct is read from.
	source, file string
}

const (
	legacyFile = "aws/aws.go"
	ccmFile    = "pkg/providers/v1/aws.go"
)

// readers are the releases a node image carries, by their Code name.
var readers = map[string]reader{
	"k8s.io/legacy-cloud-providers/aws@v0.26.13": {func() any { return new(legacy026) }, "k8s.io/legacy-cloud-providers@v0.26.13", legacyFile},
	"k8s.io/cloud-provider-aws@v1.26.1":          {func() any { return new(ccm126) }, "k8s.io/cloud-provider-aws@v1.26.1", ccmFile},
	"k8s.io/cloud-provider-aws@v1.27.2":          {func() any { return new(ccm127) }, "k8s.io/cloud-provider-aws@v1.27.2", ccmFile},
}
