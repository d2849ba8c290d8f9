package cloudcluster

import (
	"testing"

	kubeletv1 "k8s.io/kubelet/config/v1"
	"sigs.k8s.io/yaml"
)

// The configuration is the kubelet's own type, strictly: the plugin, its
// images, its cache duration and its arguments, and no arguments when it
// takes none.
func TestCredentialProviderConfig(t *testing.T) {
	for _, p := range []CredentialPlugin{
		{Name: "acr-credential-provider", MatchImages: []string{"*.azurecr.io", "*.azurecr.cn"}, DefaultCacheDuration: "10m", Args: []string{"/etc/kubernetes/azure.json"}},
		{Name: "ecr-credential-provider", MatchImages: []string{"*.dkr.ecr.*.amazonaws.com"}, DefaultCacheDuration: "0"},
	} {
		var got kubeletv1.CredentialProviderConfig
		if err := yaml.UnmarshalStrict([]byte(CredentialProviderConfig(p)), &got); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if got.Kind != "CredentialProviderConfig" || got.APIVersion != "kubelet.config.k8s.io/v1" || len(got.Providers) != 1 {
			t.Fatalf("%s: %+v", p.Name, got)
		}
		g := got.Providers[0]
		if g.Name != p.Name || g.APIVersion != "credentialprovider.kubelet.k8s.io/v1" || g.DefaultCacheDuration == nil ||
			len(g.MatchImages) != len(p.MatchImages) || g.MatchImages[0] != p.MatchImages[0] || len(g.Args) != len(p.Args) {
			t.Errorf("%s: %+v", p.Name, g)
		}
	}
}
