package azure

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/providers"
)

const (
	inTreeAzure = "k8s.io/legacy-cloud-providers/azure@v0.29.15"
	ccmAzure    = "sigs.k8s.io/cloud-provider-azure@v1.30.4"
)

func input(code, text string) providers.CloudConfigInput {
	return providers.CloudConfigInput{Path: "azure.json", Text: text, Code: code, Reader: "kube-controller-manager"}
}

// The codes azure.json is read as are the ones the provider names for its
// two sides.
func TestCloudConfigCodesAreTheSides(t *testing.T) {
	for _, code := range []string{Provider{}.InTreeCode("v1.29.15"), Provider{}.CCMCode("v1.30.14")} {
		if _, ok := providers.CloudConfigsOf(code); !ok {
			t.Errorf("no reader of %q", code)
		}
	}
}

// An unset loadBalancerSku is warned in tree (basic: Azure makes no such
// public IP any more), not outside (standard), and the pair is warned for
// the change of SKU at the hand-off; a file the manager refuses is an
// error.
func TestTheLoadBalancerSKUIsJudgedAsEachSideReadsIt(t *testing.T) {
	p := Provider{}
	unset := `{"tenantId": "t"}`
	if fs := p.CheckCloudConfig(input(inTreeAzure, unset)); len(fs) != 1 || fs[0].Error || !strings.Contains(fs[0].What, "IPv4BasicSkuPublicIpCountLimitReached") {
		t.Errorf("in tree: %+v", fs)
	}
	if fs := p.CheckCloudConfig(input(ccmAzure, unset)); len(fs) != 0 {
		t.Errorf("outside: %+v", fs)
	}
	if fs := p.CheckCloudConfig(input(inTreeAzure, `{"loadBalancerSku": "standard"}`)); len(fs) != 0 {
		t.Errorf("standard in tree: %+v", fs)
	}
	fs := p.CompareCloudConfigs(input(inTreeAzure, unset), input(ccmAzure, unset))
	if len(fs) != 1 || fs[0].Where != "loadBalancerSku" || !strings.Contains(fs[0].What, "basic") {
		t.Errorf("pair: %+v", fs)
	}
	if fs := p.CompareCloudConfigs(input(inTreeAzure, `{"loadBalancerSku": "standard", "cloudProviderRateLimit": true}`), input(ccmAzure, `{}`)); len(fs) != 1 || fs[0].Where != "cloudProviderRateLimit" {
		t.Errorf("a carried field set on one side: %+v", fs)
	}
	if fs := p.CheckCloudConfig(input(inTreeAzure, `{"loadBalancerSku": 1}`)); len(fs) != 1 || !fs[0].Error {
		t.Errorf("a wrong type: %+v", fs)
	}
}
