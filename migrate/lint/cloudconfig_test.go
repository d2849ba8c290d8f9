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
// error, in gcfg's words.
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
			if !strings.Contains(f.Problem, `names cluster "prod", ccm.conf names "staging": the cloud-controller-manager looks for another cluster's resources`) {
				t.Errorf("cluster ID finding: %v", f)
			}
		}
	}
	if strings.Join(got, ",") != "[Global] KubernetesClusterID, KubernetesClusterTag" {
		t.Errorf("findings %v", fs)
	}
	// The same cluster, by the legacy tag on one side; a side naming none
	// takes its instance's tag: nothing to say.
	for _, pair := range [][2]string{{"[Global]\nKubernetesClusterID = prod\n", "[Global]\nKubernetesClusterTag = prod\n"}, {"[Global]\nKubernetesClusterID = prod\n", "[Global]\n"}} {
		k, c = cloudSides(pair[0], pair[1])
		for _, f := range Lint(k, c) {
			if strings.HasPrefix(f.Where, "[Global]") || strings.Contains(f.Where, ".conf") {
				t.Errorf("%q and %q: %v", pair[0], pair[1], f)
			}
		}
	}
}

// A file naming two clusters stops its manager (tags.go).
func TestLintCloudConfigTwoClusterIDs(t *testing.T) {
	k, _ := cloudSides("[Global]\nKubernetesClusterTag = a\nKubernetesClusterID = b\n", "")
	if fs := lintCloudConfig(k); len(fs) != 1 || fs[0].Severity != Error || !strings.Contains(fs[0].Problem, "clusterID tags did not match") {
		t.Errorf("findings %v", fs)
	}
}
