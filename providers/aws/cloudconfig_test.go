package aws_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/aws"
	"github.com/handover-sh/handover/providers/aws/awsconfig"
)

// The seam finds the aws provider by every release it reads, and by no
// other; what it carries is what awsconfig carries, and a file the
// release refuses is refused in gcfg's words.
func TestAWSCloudConfigs(t *testing.T) {
	for _, code := range awsconfig.Codes() {
		if c, ok := providers.CloudConfigsOf(code); !ok || c != (aws.Provider{}) {
			t.Errorf("%s: read by %v", code, c)
		}
	}
	if _, ok := providers.CloudConfigsOf("k8s.io/cloud-provider-aws@v9.9.9"); ok {
		t.Error("an unknown release is read")
	}
	if !slices.Contains(providers.NamesWith[providers.CloudConfigs](), aws.Name) {
		t.Errorf("providers reading cloud-configs: %v", providers.NamesWith[providers.CloudConfigs]())
	}
	p := aws.Provider{}
	in := providers.CloudConfigInput{Path: "ccm.conf", Code: "k8s.io/cloud-provider-aws@v1.27.2", Reader: "cloud-controller-manager",
		Text: "[Global]\nKubernetesClusterID = prod\nVPC = vpc-1\n"}
	vars, left, err := p.CarryCloudConfig(in)
	if err != nil || len(vars) != 1 || vars[0] != [2]string{"KubernetesClusterID", "prod"} || len(left) != 1 || left[0].Name != "VPC" || left[0].Why == "" {
		t.Errorf("carried %v, left %+v, %v", vars, left, err)
	}
	in.Text = "[Global]\nDisableStrictZoneCheck = true\n"
	if _, _, err := p.CarryCloudConfig(in); err == nil || !strings.Contains(err.Error(), `variable "DisableStrictZoneCheck"`) {
		t.Errorf("a refused file carried: %v", err)
	}
	if fs := p.CheckCloudConfig(in); len(fs) != 1 || !fs[0].Error || fs[0].Where != "ccm.conf (cloud-controller-manager)" {
		t.Errorf("findings %+v", fs)
	}
}

// DisableSecurityGroupIngress is warned wherever it is set: the rule it
// stops writing must be the user's own, and the rehearsal's nodes' group
// has none; unset (or false) nothing is said.
func TestDisabledIngressIsWarned(t *testing.T) {
	p := aws.Provider{}
	for text, warned := range map[string]bool{
		"[Global]\nDisableSecurityGroupIngress = true\n":  true,
		"[Global]\nDisableSecurityGroupIngress = false\n": false,
		"[Global]\nKubernetesClusterID = prod\n":          false,
	} {
		in := providers.CloudConfigInput{Path: "ccm.conf", Code: "k8s.io/cloud-provider-aws@v1.27.2", Reader: "cloud-controller-manager", Text: text}
		fs := p.CheckCloudConfig(in)
		got := len(fs) == 1 && !fs[0].Error && strings.HasSuffix(fs[0].Where, "DisableSecurityGroupIngress") && strings.Contains(fs[0].Fix, "30000-32767")
		if got != warned || (!warned && len(fs) != 0) {
			t.Errorf("%q: findings %+v", text, fs)
		}
	}
}
