package lint

import (
	"strings"
	"testing"
)

const (
	inTreeCode = "k8s.io/legacy-cloud-providers/aws@v0.26.13"
	ccmCode    = "k8s.io/cloud-provider-aws@v1.27.2"
)

func cloudSides(kcm, ccm string) (Side, Side) {
	k := Side{Component: "kube-controller-manager", Version: "v1.26.13", CloudProvider: "aws",
		CloudConfig: &CloudConfig{Path: "kcm.conf", Text: kcm, Code: inTreeCode}}
	c := Side{Component: "cloud-controller-manager", Version: "v1.27.4",
		CloudConfig: &CloudConfig{Path: "ccm.conf", Text: ccm, Code: ccmCode}}
	return k, c
}

// A variable the side's release has no field for stops the manager: an
// error, in gcfg's words; one the lint has no reader for is unchecked.
func TestLintCloudConfigRefusedByItsRelease(t *testing.T) {
	_, c := cloudSides("", "[Global]\nDisableStrictZoneCheck = true\n")
	fs := lintCloudConfig(c)
	if len(fs) != 1 || fs[0].Severity != Error || !strings.Contains(fs[0].Problem, `variable "DisableStrictZoneCheck"`) ||
		!strings.Contains(fs[0].Problem, "does not start") {
		t.Errorf("findings %v", fs)
	}
	k, _ := cloudSides("[Global]\nDisableStrictZoneCheck = true\n", "")
	if fs := lintCloudConfig(k); len(fs) != 0 {
		t.Errorf("the in-tree release reads DisableStrictZoneCheck, yet: %v", fs)
	}
	c.CloudConfig.Code = "k8s.io/cloud-provider-aws@v9.9.9"
	if fs := lintCloudConfig(c); len(fs) != 1 || fs[0].Severity != Warning || !strings.Contains(fs[0].Problem, "unchecked") {
		t.Errorf("an unknown release: %v", fs)
	}
}

// The two files compared variable by variable: a differing cluster ID is
// another cluster's resources; equal files say nothing.
func TestLintCloudConfigPair(t *testing.T) {
	k, c := cloudSides("[Global]\nKubernetesClusterID = prod\nZone = us-east-1a\nDisableStrictZoneCheck = true\n", "[Global]\nkubernetesclusterid = staging\nZone = us-east-1a\nRegion = us-east-1\n")
	fs := Lint(k, c)
	var got []string
	for _, f := range fs {
		if strings.HasPrefix(f.Where, "[Global]") {
			got = append(got, f.Where)
			if f.Where == "[Global] KubernetesClusterID" && !strings.Contains(f.Problem, "another cluster's resources") {
				t.Errorf("cluster ID finding: %v", f)
			}
		}
	}
	if strings.Join(got, ",") != "[Global] KubernetesClusterID" {
		t.Errorf("findings %v", fs)
	}
	k, c = cloudSides("[Global]\nKubernetesClusterID = prod\n", "[Global]\nKubernetesClusterID = prod\n")
	for _, f := range Lint(k, c) {
		if strings.HasPrefix(f.Where, "[Global]") || strings.Contains(f.Where, ".conf") {
			t.Errorf("equal files: %v", f)
		}
	}
}
