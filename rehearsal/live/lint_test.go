package live_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// The lint judges the cluster's managers as they run: the
// kube-controller-manager at the cluster's version with leader migration
// on, the cloud-controller-manager at the next version with its
// provider's profile, its flags and the ConfigMap's configuration.
func TestSidesAreTheManagersAsTheyRun(t *testing.T) {
	d := awsCluster().describe(t)
	sides, notes, err := d.Sides("v1.30.14", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sides) != 2 {
		t.Fatalf("sides %+v", sides)
	}
	kcm, ccm := sides[0], sides[1]
	if kcm.Component != lmconfig.KCM || kcm.Version != "v1.29.15" || !kcm.LeaderMigration || kcm.Config != nil || kcm.ClusterName != "lmx" || !kcm.AllocateNodeCIDRs {
		t.Errorf("kcm side %+v", kcm)
	}
	if ccm.Component != lmconfig.CCM || ccm.Version != "v1.30.14" || ccm.Provider != "aws" || ccm.CloudProvider != "aws" || ccm.Config == nil || ccm.ClusterName != "lmx" {
		t.Errorf("ccm side %+v", ccm)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "kube-controller-manager runs without leader migration") || !strings.Contains(notes[0], "kcm=FILE") {
		t.Errorf("notes %q", notes)
	}
	// The fixture's ConfigMap names the short names: the lint judges the
	// file the cluster runs, so the next step's manager matches none.
	if fs := lint.Lint(sides...); fs.Errors() == 0 || !strings.Contains(fs.Head(lint.Shown), `"service" is an alias`) {
		t.Errorf("the ConfigMap's short names on v1.30.14 pass the lint:\n%s", fs.Head(lint.Shown))
	}
}

// The sides' fields are the flags as the lint reads them: a boolean in
// any form strconv takes, and every --feature-gates merged in order.
func TestSidesReadFlagsAsTheLintDoes(t *testing.T) {
	tc := awsCluster()
	cmd := slices.Clone(tc.kcm.Spec.Containers[0].Command)
	for i, a := range cmd {
		if a == "--allocate-node-cidrs=true" {
			cmd[i] = "--allocate-node-cidrs=True"
		}
	}
	tc.kcm.Spec.Containers[0].Command = append(cmd, "--feature-gates=A=true", "--feature-gates=B=false,A=false")
	sides, _, err := tc.describe(t).Sides("v1.30.14", nil)
	if err != nil {
		t.Fatal(err)
	}
	gates := strings.Split(sides[0].FeatureGates, ",")
	slices.Sort(gates)
	if kcm := sides[0]; !kcm.AllocateNodeCIDRs || !slices.Equal(gates, []string{"A=false", "B=false"}) {
		t.Errorf("kcm side: allocate-node-cidrs %v, feature gates %q", kcm.AllocateNodeCIDRs, kcm.FeatureGates)
	}
}
