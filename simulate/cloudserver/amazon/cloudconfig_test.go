package amazon_test

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
)

// A cluster whose nodes reach the metadata service at EC2's own address
// overrides only the APIs; one that serves it elsewhere overrides it too.
func TestProviderConfigOverridesWhatIsServedElsewhere(t *testing.T) {
	onAddress := amazon.ProviderConfig{Region: "r1", AWS: "http://10.0.0.1:4000"}.INI()
	if strings.Contains(onAddress, "ec2metadata") || !strings.Contains(onAddress, "URL = http://10.0.0.1:4000/elasticloadbalancing\n") {
		t.Errorf("metadata at its own address:\n%s", onAddress)
	}
	elsewhere := amazon.ProviderConfig{Region: "r1", AWS: "http://10.0.0.1:4000", IMDS: "http://10.0.0.1:4001", ClusterID: "c"}.INI()
	if !strings.Contains(elsewhere, "[ServiceOverride \"ec2metadata\"]\nService = ec2metadata\nRegion = r1\nURL = http://10.0.0.1:4001\n") ||
		!strings.Contains(elsewhere, "KubernetesClusterID = c\n") {
		t.Errorf("metadata elsewhere:\n%s", elsewhere)
	}
}

// Other names than the face's ELB DNS names lead to no load balancer.
func TestELBNameOfOtherNames(t *testing.T) {
	for _, other := range []string{"example.com", "x.elb.amazonaws.com", "-0123456789.r.elb.amazonaws.com", "a-012.r.elb.amazonaws.com"} {
		if name, ok := amazon.ELBNameOfDNS(other); ok {
			t.Errorf("%s: %q", other, name)
		}
	}
}

// A cluster whose resources carry another cluster ID than its name is
// tagged with that ID; its other identities stay the name's.
func TestClusterTagFollowsTheClusterID(t *testing.T) {
	named, tagged := amazon.Network{Cluster: "c"}, amazon.Network{Cluster: "c", ClusterID: "prod"}
	if named.ClusterTag() != "kubernetes.io/cluster/c" || tagged.ClusterTag() != "kubernetes.io/cluster/prod" || named.VPC() != tagged.VPC() {
		t.Errorf("tags %s, %s; VPCs %s, %s", named.ClusterTag(), tagged.ClusterTag(), named.VPC(), tagged.VPC())
	}
	ini := amazon.ProviderConfig{Region: "r1", AWS: "http://10.0.0.1:4000", Global: [][2]string{{"KubernetesClusterID", `a "b" \c`}}}.INI()
	if !strings.Contains(ini, `KubernetesClusterID = "a \"b\" \\c"`+"\n") {
		t.Errorf("a user's value is not quoted as gcfg reads it:\n%s", ini)
	}
}
