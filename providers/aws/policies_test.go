package aws

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// --aws-iam-policy takes one policy per component that signs here, each
// file read as IAM reads a policy; anything else is refused, saying why.
func TestReadPolicies(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("ccm.json", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"ec2:Describe*","Resource":"*"}}`)
	bad := write("bad.json", `{"Version":"2012-10-17","Statement":{"Effect":"Allow","Action":"ec2:*","Resource":"*","Principal":"*"}}`)
	big := write("big.json", strings.Repeat(" ", 70<<10))
	ps, err := readPolicies([]string{"cloud-controller-manager=" + good, "kubelet=" + good})
	if err != nil || len(ps) != 2 || !ps["kubelet"].Decide("ec2:DescribeInstances").Allowed || ps["kubelet"].Decide("ec2:CreateRoute").Allowed {
		t.Fatalf("read %v, %v", ps, err)
	}
	for spec, want := range map[string]string{
		"ccm=" + good:                                         `no component "ccm"`,
		"cloud-controller-manager":                            "want PRINCIPAL=FILE",
		"cloud-controller-manager=" + bad:                     "Principal",
		"cloud-controller-manager=" + big:                     "too large",
		"cloud-controller-manager=" + filepath.Join(dir, "x"): "no such file",
	} {
		if _, err := readPolicies([]string{spec}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
	if _, err := readPolicies([]string{"kubelet=" + good, "kubelet=" + good}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("twice: %v", err)
	}
}
