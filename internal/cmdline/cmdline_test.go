package cmdline

import (
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
