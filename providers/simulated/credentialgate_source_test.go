package simulated

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/modsource"
)

// The simulated cloud's in-tree credential provider is off, as upstream's
// GCR provider is (Kubernetes 1.29 pkg/credentialprovider/gcp/metadata.go,
// Enabled), once DisableKubeletCloudCredentialProviders is on; the gate is
// off by default through 1.28, on from 1.29, and locked on from 1.31
// (pkg/features/kube_features.go), which is why in-tree clusters turn it
// off and the version-N+1 kubelets drop it.
func TestInTreeCredentialsGateFollowsUpstream(t *testing.T) {
	gcp, ok := modsource.Text(t, modsource.Dir(t, "k8s.io/kubernetes@v1.29.15"), "pkg/credentialprovider/gcp/metadata.go")
	if !ok {
		t.Fatal("no gcp/metadata.go in Kubernetes v1.29.15")
	}
	i := strings.Index(gcp, "func (g *MetadataProvider) Enabled() bool")
	if i < 0 {
		t.Fatal("the GCR provider has no Enabled")
	}
	enabled := gcp[i:]
	if !strings.Contains(enabled[:min(len(enabled), 600)], "credentialprovider.AreLegacyCloudCredentialProvidersDisabled()") {
		t.Error("the GCR provider's Enabled no longer reads the gate")
	}
	for version, want := range map[string]string{
		"v1.26.13": "DisableKubeletCloudCredentialProviders: {Default: false, PreRelease: featuregate.Alpha}",
		"v1.28.15": "DisableKubeletCloudCredentialProviders: {Default: false, PreRelease: featuregate.Alpha}",
		"v1.29.15": "DisableKubeletCloudCredentialProviders: {Default: true, PreRelease: featuregate.Beta}",
		"v1.30.14": "DisableKubeletCloudCredentialProviders: {Default: true, PreRelease: featuregate.Beta}",
		"v1.31.4":  "DisableKubeletCloudCredentialProviders: {Default: true, PreRelease: featuregate.GA, LockToDefault: true}",
	} {
		features, ok := modsource.Text(t, modsource.Dir(t, "k8s.io/kubernetes@"+version), "pkg/features/kube_features.go")
		if !ok || !strings.Contains(features, want) {
			t.Errorf("Kubernetes %s: no %q", version, want)
		}
	}
}
