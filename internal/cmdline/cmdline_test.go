package cmdline

import (
	"slices"
	"strings"
	"testing"
)

// A user's --feature-gates joins the manifest's, winning per gate: kubeadm's
// DisableCloudProviders=false stays unless the user sets it.
func TestMergeFeatureGates(t *testing.T) {
	cmd := []string{"kube-controller-manager", "--feature-gates=DisableCloudProviders=false,Other=true", "--v=2"}
	got := strings.Join(Merge(cmd, []string{"--feature-gates=Other=false,New=true", "--v=4", "--profiling"}), " ")
	want := "kube-controller-manager --feature-gates=DisableCloudProviders=false,Other=false,New=true --v=4 --profiling"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Applying the same flags again changes nothing: a rolled step converges.
	again := strings.Join(Merge(strings.Fields(got), []string{"--feature-gates=Other=false,New=true", "--v=4", "--profiling"}), " ")
	if again != got {
		t.Errorf("not idempotent:\n%s\n%s", got, again)
	}
}

// A pod's command line reads the same whichever form its flags take.
func TestLongJoinsTheTwoTokenForm(t *testing.T) {
	got := Long([]string{"kube-controller-manager", "--secure-port", "10257", "--leader-elect", "--v=2", "--cluster-name", "prod"})
	want := []string{"--secure-port=10257", "--leader-elect", "--v=2", "--cluster-name=prod"}
	if !slices.Equal(got, want) {
		t.Errorf("Long: %q, want %q", got, want)
	}
}
