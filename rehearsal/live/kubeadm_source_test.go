package live

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/modsource"
)

// kindKCM is the flag of kubeadmKCM that kind's kubeadm configuration sets,
// not kubeadm itself.
const kindKCM = "enable-hostpath-provisioner"

// TestKubeadmKCMHoldsToItsSource: every flag describe takes for kubeadm's
// own is one getControllerManagerCommand gives every kube-controller-
// manager, with that value, in each release handover builds (a map
// literal through 1.29's predecessors, kubeadmapi.Arg after; allocate-
// node-cidrs set when the pod subnet is, as kind's always is), and
// enable-hostpath-provisioner is kind's, in the kind release handover
// links. A drift would make describe drop a flag the cluster chose.
func TestKubeadmKCMHoldsToItsSource(t *testing.T) {
	for _, version := range slices.Sorted(maps.Keys(nodeimage.Releases)) {
		src, ok := modsource.Text(t, modsource.Dir(t, "k8s.io/kubernetes@"+version), "cmd/kubeadm/app/phases/controlplane/manifests.go")
		if !ok {
			t.Fatalf("Kubernetes %s has no kubeadm manifests.go", version)
		}
		for name, value := range kubeadmKCM {
			if name == kindKCM {
				continue
			}
			n, v := regexp.QuoteMeta(name), regexp.QuoteMeta(value)
			set := `"` + n + `":\s*"` + v + `"|\{Name: "` + n + `", Value: "` + v + `"\}|defaultArguments\["` + n + `"\] = "` + v + `"|SetArgValues\(defaultArguments, "` + n + `", "` + v + `"`
			if !regexp.MustCompile(set).MatchString(src) {
				t.Errorf("Kubernetes %s: kubeadm does not set --%s=%s", version, name, value)
			}
		}
	}
	kind, ok := modsource.Text(t, modsource.Dir(t, "sigs.k8s.io/kind@"+kindVersion(t)), "pkg/cluster/internal/kubeadm/config.go")
	if !ok || !regexp.MustCompile(kindKCM+`"?:\s*"true"|name: "`+kindKCM+`"`).MatchString(kind) {
		t.Errorf("kind does not set --%s=true", kindKCM)
	}
}

// kindVersion is the kind release go.mod requires.
func kindVersion(t *testing.T) string {
	t.Helper()
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*sigs\.k8s\.io/kind (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("go.mod requires no sigs.k8s.io/kind")
	}
	return string(m[1])
}
