package cloudcluster

import "strings"

// CredentialPlugin is one kubelet image credential provider, as a
// kubelet's CredentialProviderConfig (kubelet.config.k8s.io/v1) lists it:
// the plugin's binary name, the images it is asked for, how long the
// kubelet keeps what it answers when it says nothing of its own, and its
// arguments.
type CredentialPlugin struct {
	Name                 string
	MatchImages          []string
	DefaultCacheDuration string
	Args                 []string
}

// CredentialProviderConfig is the kubelet's configuration of one plugin.
func CredentialProviderConfig(p CredentialPlugin) string {
	var b strings.Builder
	b.WriteString("apiVersion: kubelet.config.k8s.io/v1\nkind: CredentialProviderConfig\nproviders:\n- name: " + p.Name + "\n  matchImages:\n")
	for _, m := range p.MatchImages {
		b.WriteString("  - \"" + m + "\"\n")
	}
	b.WriteString("  defaultCacheDuration: \"" + p.DefaultCacheDuration + "\"\n  apiVersion: credentialprovider.kubelet.k8s.io/v1\n")
	if len(p.Args) > 0 {
		b.WriteString("  args:\n")
		for _, a := range p.Args {
			b.WriteString("  - " + a + "\n")
		}
	}
	return b.String()
}
