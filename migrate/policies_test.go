package migrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handover-sh/handover/migrate/lint"
)

// A component's policy: the lint warns of each action its code calls
// that the policy does not allow, the plan names them, and a provider
// without a permission model refuses the flag.
func TestPoliciesLintAndPlan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.json")
	if err := os.WriteFile(path, []byte(`{"Version":"2012-10-17","Statement":{"Effect":"Allow","NotAction":"ec2:DescribeAvailabilityZones","Resource":"*"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := DefaultSpec("taskdoc")
	s.From, s.To = "v1.26.13", "v1.27.4"
	if err := s.SetCloudProfile("aws"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPolicies([]string{"kcm=" + path, "ccm=" + path}); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	var warned []string
	for _, f := range s.Lint() {
		if strings.Contains(f.Where, "--iam-policy") {
			if f.Severity != lint.Warning {
				t.Errorf("not a warning: %v", f)
			}
			warned = append(warned, f.Where+": "+f.Problem)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "--iam-policy ccm") || !strings.Contains(warned[0], "ec2:DescribeAvailabilityZones") {
		t.Errorf("warned %v, want the ccm's policy alone, for ec2:DescribeAvailabilityZones", warned)
	}
	var b strings.Builder
	writePolicies(&b, s)
	if !strings.Contains(b.String(), "refused, though the cloud-controller-manager's code calls them: ec2:DescribeAvailabilityZones") {
		t.Errorf("plan:\n%s", b.String())
	}
	if err := s.SetPolicies([]string{"ccm=" + path}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a side twice: %v", err)
	}
	d := DefaultSpec("taskdoc")
	if err := d.SetPolicies([]string{"ccm=" + path}); err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "permission model") {
		t.Errorf("the simulated provider with a policy: %v", err)
	}
}
