package main

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/exitcode"
)

const rancherTestdata = "../../rehearsal/rancher/testdata/"

// describe prints the derived rehearsal file with the edit's runbook step
// as comments, and says whether rehearse takes the file on this machine.
func TestDescribePrintsTheRehearsalAndTheStep(t *testing.T) {
	for _, c := range []struct {
		args []string
		says []string
	}{
		{[]string{"--rancher-cluster", rancherTestdata + "rke2-aws-before-step5.yaml", "--rancher-cluster-after", rancherTestdata + "rke2-aws-step5.yaml"},
			[]string{"# The edit is step 5 of Rancher: Migrating Amazon In-tree to Out-of-tree, RKE2", "\nprocedure: rke2\n", "\nflavour: aws\n", "\nfrom: v1.26.13\n", "\nto: v1.27.4\n"}},
		{[]string{"--rke-cluster-yml", rancherTestdata + "rke-aws-before-step5.yml", "--rke-cluster-yml-after", rancherTestdata + "rke-aws-step5.yml"},
			[]string{"# The edit is steps 5 and 6 of Rancher: Migrating Amazon In-tree to Out-of-tree, RKE", "\nprocedure: rke\n", "\nflavour: external-aws\n"}},
		{[]string{"--rke-cluster-yml", rancherTestdata + "rke-aws-before-step5.yml"}, []string{"\nprocedure: rke\n", "\nto: v1.26.13\n"}},
	} {
		out, err := runCLIOut(t, append([]string{"describe"}, c.args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", c.args, err, out)
		}
		for _, want := range append(c.says, "\n# handover rehearse --config ") {
			if !strings.Contains(out, want) {
				t.Errorf("%v: the output does not say %q:\n%s", c.args, want, out)
			}
		}
	}
}

// Wrong input is bad input, said in one line naming the flag.
func TestDescribeRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "give the cluster's YAML: --rancher-cluster FILE"},
		{[]string{"--rancher-cluster-after", rancherTestdata + "rke2-aws-step5.yaml"}, "give the cluster before it with --rancher-cluster"},
		{[]string{"--rancher-cluster", rancherTestdata + "rke2-aws-step5.yaml", "--rke-cluster-yml", rancherTestdata + "rke-aws-step5.yml"}, "give one cluster's YAML, of one kind"},
		{[]string{"--rancher-cluster", rancherTestdata + "rke-aws-step5.yml"}, "--rancher-cluster: " + rancherTestdata + "rke-aws-step5.yml: no apiVersion and kind: an RKE cluster.yml, not a provisioning.cattle.io/v1 Cluster (give it with --rke-cluster-yml)"},
		{[]string{"--rke-cluster-yml", rancherTestdata + "rke2-aws-step5.yaml"}, "(give it with --rancher-cluster)"},
		{[]string{"--rancher-cluster", rancherTestdata + "rke2-aws-step5.yaml", "--rancher-cluster-after", rancherTestdata + "rke2-aws-before-step5.yaml"}, "are the files the other way round?"},
	} {
		err := runCLI(t, append([]string{"describe"}, c.args...)...)
		if exitcode.Of(err) != exitcode.BadInput || !strings.Contains(errString(err), c.want) || strings.Contains(errString(err), "\n") {
			t.Errorf("%v: exit %d, %v; want %d and one line with %q", c.args, exitcode.Of(err), err, exitcode.BadInput, c.want)
		}
	}
}
