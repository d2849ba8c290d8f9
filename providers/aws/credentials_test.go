package aws

import (
	"path"
	"strings"
	"testing"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/modsource"
)

// The kubelet's entry for ecr-credential-provider is the one its docs give
// (cloud-provider-aws v1.27.2 docs/credential_provider.md): the binary's
// name, its globs, its API version; only a node image that carries the
// plugin gets the flags, pointing where the image has it.
func TestCredentialProviderConfigFollowsItsDocs(t *testing.T) {
	doc, ok := modsource.Text(t, modsource.Dir(t, "k8s.io/cloud-provider-aws@v1.27.2"), "docs/credential_provider.md")
	if !ok {
		t.Fatal("cloud-provider-aws v1.27.2 has no docs/credential_provider.md")
	}
	for _, want := range append([]string{`"name": "` + ecrCredentialProvider + `"`, `"apiVersion": "credentialprovider.kubelet.k8s.io/v1"`}, ecrMatchImages...) {
		if !strings.Contains(doc, want) {
			t.Errorf("the docs do not give %s", want)
		}
	}
	r, err := nodeimage.Lookup("v1.27.4")
	if err != nil {
		t.Fatal(err)
	}
	if got := path.Base(r.ProviderCCMs[0].CredentialProvider); got != ecrCredentialProvider {
		t.Errorf("the v1.27.4 image carries %q", got)
	}
	args := imageCredentials("v1.27.4")
	if args["image-credential-provider-bin-dir"] != nodeimage.CredentialProviderDir || args["image-credential-provider-config"] != credentialProviderConfigPath {
		t.Errorf("v1.27.4 kubelet flags %v", args)
	}
	if args := imageCredentials("v1.26.13"); args != nil {
		t.Errorf("a v1.26 kubelet (in-tree ECR provider, no plugin in its image) gets %v", args)
	}
	cfg := credentialProviderConfig()
	for _, want := range []string{"kind: CredentialProviderConfig", "- name: " + ecrCredentialProvider, `- "*.dkr.ecr.*.amazonaws.com"`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("the configuration lacks %s:\n%s", want, cfg)
		}
	}
}
