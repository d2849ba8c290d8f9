package azure

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/modsource"
	"github.com/handover-sh/handover/simulate/cloudserver/registry"
)

// TestACRCredentialsHoldInTheirSource: what the cluster's ACR and the
// kubelets' credentials are made of, as each side's source has it.
func TestACRCredentialsHoldInTheirSource(t *testing.T) {
	k29 := modsource.Dir(t, "k8s.io/kubernetes@v1.29.15")
	k30 := modsource.Dir(t, "k8s.io/kubernetes@v1.30.14")
	cpa := modsource.Dir(t, "sigs.k8s.io/cloud-provider-azure@v1.30.4")
	for _, c := range []struct{ dir, file string }{
		// The 1.29 kubelet pulls in tree when told its azure.json.
		{k29, "pkg/credentialprovider/azure/azure_credentials.go"},
		{k29, "cmd/kubelet/app/options/globalflags_providers.go"},
	} {
		if _, ok := modsource.Text(t, c.dir, c.file); !ok {
			t.Errorf("%s: no %s", c.dir, c.file)
		}
	}
	// ... and 1.30's kubelet cannot.
	if _, err := os.Stat(filepath.Join(k30, "pkg/credentialprovider/azure")); err == nil {
		t.Errorf("Kubernetes v1.30.14 still has the in-tree ACR provider")
	}
	flags, _ := modsource.Text(t, k29, "cmd/kubelet/app/options/globalflags_providers.go")
	intree, _ := modsource.Text(t, k29, "pkg/credentialprovider/azure/azure_credentials.go")
	helper, _ := modsource.Text(t, cpa, "pkg/credentialprovider/azure_acr_helper.go")
	creds, _ := modsource.Text(t, cpa, "pkg/credentialprovider/azure_credentials.go")
	example, _ := modsource.Text(t, cpa, "examples/out-of-tree/credential-provider-config.yaml")
	for _, c := range []struct{ src, what, want string }{
		{flags, "the kubelet's flag", `"azure-container-registry-config"`},
		{intree, "the in-tree registries", `.*\.azurecr\.io`},
		{creds, "the plugin's registries", `azurecr\.io`},
		{helper, "the exchange's user", `dockerTokenLoginUsernameGUID = "` + registry.ACRUser + `"`},
		{helper, "the exchange", `authEndpoint := fmt.Sprintf("%s://%s/oauth2/exchange"`},
		{helper, "the challenge", `Path:   "v2/"`},
		{example, "the plugin's name", "- name: " + acrCredentialProvider},
		{example, "the plugin's argument", "- /etc/kubernetes/azure.json"},
	} {
		if !strings.Contains(c.src, c.want) {
			t.Errorf("%s: the source no longer has %q", c.what, c.want)
		}
	}
	ours := credentialProviderConfig()
	for _, m := range acrMatchImages {
		if !strings.Contains(example, `- "`+m+`"`) || !strings.Contains(ours, `- "`+m+`"`) {
			t.Errorf("match image %s: in the example %v, ours %v", m, strings.Contains(example, m), strings.Contains(ours, m))
		}
	}
	if !strings.HasSuffix(RegistryHost, ".azurecr.io") {
		t.Errorf("%s is not a name both providers take for ACR", RegistryHost)
	}
}

// The kubelets' flags by version: the plugin's on 1.30, the in-tree
// provider's on 1.29; the plugin's configuration names the node's
// azure.json.
func TestImageCredentialsByVersion(t *testing.T) {
	if got := imageCredentials("v1.30.14"); got["image-credential-provider-config"] != credentialProviderConfigPath || got["azure-container-registry-config"] != "" {
		t.Errorf("1.30: %v", got)
	}
	if got := imageCredentials("v1.29.15"); len(got) != 1 || got["azure-container-registry-config"] != CloudConfigPath {
		t.Errorf("1.29: %v", got)
	}
	if !strings.Contains(credentialProviderConfig(), "  - "+CloudConfigPath+"\n") {
		t.Errorf("the plugin's configuration:\n%s", credentialProviderConfig())
	}
	var mounts []string
	for _, m := range (Provider{}).NodeMounts("c", "n", "worker") {
		mounts = append(mounts, m.ContainerPath)
	}
	if !slices.Contains(mounts, credentialProviderConfigPath) || !slices.Contains(mounts, "/etc/containerd/certs.d/"+RegistryHost) {
		t.Errorf("a worker's mounts: %v", mounts)
	}
}
