package azure_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/modsource"
)

// carriageEvidence is what the carriers' reading of a load balancer
// (carriage.go) rests on, in the providers' own files: floating-IP rules
// whose backendPort is the Service's port, a probe on the Service's
// nodePort (5 s apart, 2 to fail), kube-proxy's health check on /healthz,
// and the public IPs' service tags.
var carriageEvidence = []struct {
	mod, file string
	evidence  []string // words in order, apart by any white space
}{
	{"k8s.io/legacy-cloud-providers@v0.29.15", "azure/azure_loadbalancer.go", []string{
		`BackendPort: pointer.Int32(port.Port),`, `EnableFloatingIP: pointer.Bool(true),`,
		`Port: pointer.Int32(port.NodePort), IntervalInSeconds: pointer.Int32(5), NumberOfProbes: pointer.Int32(2),`,
		`serviceTagKey = "service"`,
	}},
	{"sigs.k8s.io/cloud-provider-azure@v1.30.4", "pkg/provider/azure_loadbalancer.go", []string{
		`BackendPort: pointer.Int32(servicePort.Port),`, `EnableFloatingIP: pointer.Bool(true),`,
		`props.BackendPort = pointer.Int32(port.NodePort) props.EnableFloatingIP = pointer.Bool(false)`,
		`v, ok := tags[consts.ServiceTagKey]`, `v, ok = tags[consts.LegacyServiceTagKey]`,
	}},
	{"sigs.k8s.io/cloud-provider-azure@v1.30.4", "pkg/provider/azure_loadbalancer_healthprobe.go", []string{
		`} else { properties.Port = &port.NodePort }`,
	}},
	{"sigs.k8s.io/cloud-provider-azure@v1.30.4", "pkg/consts/consts.go", []string{
		`ServiceTagKey = "k8s-azure-service"`, `LegacyServiceTagKey = "service"`,
		`HealthProbeDefaultProbeInterval int32 = 5`, `HealthProbeDefaultNumOfProbe int32 = 2`,
		`ClusterServiceLoadBalancerHealthProbeDefaultPort = 10256`, `ClusterServiceLoadBalancerHealthProbeDefaultPath = "/healthz"`,
	}},
	{"k8s.io/cloud-provider@v0.30.2", "service/helpers/helper.go", []string{`return "/healthz", port`}},
	{"k8s.io/cloud-provider@v0.29.15", "service/helpers/helper.go", []string{`return "/healthz", port`}},
}

// TestCarriageHoldsInItsSource: what the carriers read from the providers'
// rules and probes is what the providers write.
func TestCarriageHoldsInItsSource(t *testing.T) {
	for _, src := range carriageEvidence {
		text, ok := modsource.Text(t, modsource.Dir(t, src.mod), src.file)
		if !ok {
			t.Fatalf("%s has no %s", src.mod, src.file)
		}
		for _, e := range src.evidence {
			words := strings.Fields(e)
			for i, w := range words {
				words[i] = regexp.QuoteMeta(w)
			}
			if !regexp.MustCompile(strings.Join(words, `\s+`)).MatchString(text) {
				t.Errorf("%s %s no longer has %s", src.mod, src.file, e)
			}
		}
	}
}
