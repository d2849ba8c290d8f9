package nodeimage

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"
)

// Release pins what one Kubernetes version's node image contains. Image tags
// are the ones that version's kubeadm asks for.
type Release struct {
	Kubernetes string // e.g. v1.30.14
	Module     string // directory under modules/ pinning the Kubernetes build
	Etcd       string // etcd version built from the module proxy, e.g. 3.5.15
	EtcdTag    string // tag kubeadm expects, e.g. 3.5.15-0
	CoreDNS    string // CoreDNS version (image tag is "v" + this)
	Pause      []string
	// InTreeCloud: kube-controller-manager and kubelet still carry cloud
	// loops, and are built with the simulated cloud's provider registered.
	InTreeCloud bool
	// ClusterAdmins: this kubeadm writes admin.conf for the group
	// kubeadm:cluster-admins, bound to cluster-admin by `kubeadm init` or
	// `kubeadm upgrade apply` of the same minor (1.29 on), not by join.
	ClusterAdmins bool
	// ProviderCCMs are providers' own cloud-controller-managers preloaded
	// into the node image: the N+1 side of a migration off that provider.
	// Each provider's package adds its own (AddProviderCCM).
	ProviderCCMs []ProviderCCM
	// OnDemandCCMs are providers' managers built only when a build names
	// the provider (ProviderCCM.OnDemand). They are no part of the node
	// image, nor of the release's JSON, which digests what the image holds.
	OnDemandCCMs []ProviderCCM `json:"-"`
}

// CredentialProviderDir holds the node's kubelet image credential
// providers: its --image-credential-provider-bin-dir.
const CredentialProviderDir = "/usr/local/lib/kubelet-credential-providers"

// SimCredentialProvider is the simulated cloud's plugin, in every node
// image's CredentialProviderDir.
const SimCredentialProvider = "handover-credential-provider"

// Releases are the Kubernetes versions handover can build node images for.
var Releases = map[string]Release{
	// v1.26.13 and v1.27.4 are the newest patches of their minors whose
	// every build-needed module the proxy here serves: v1.26.14 and
	// v1.27.12/15 are refused whole, v1.26.15 and v1.27.5–16 each lack some
	// (kube-controller-manager, kube-proxy, cloud-provider, …). Their
	// managers use the short controller names (service, route, …).
	"v1.26.13": {Kubernetes: "v1.26.13", Module: "kubernetes-v1.26", Etcd: "3.5.15", EtcdTag: "3.5.15-0", CoreDNS: "1.11.3", Pause: []string{"3.9", "3.10"}, InTreeCloud: true},
	"v1.27.4":  {Kubernetes: "v1.27.4", Module: "kubernetes-v1.27", Etcd: "3.5.15", EtcdTag: "3.5.15-0", CoreDNS: "1.11.3", Pause: []string{"3.9", "3.10"}, InTreeCloud: true},
	// The last patches of 1.28 and 1.29. Every release runs the same etcd and
	// CoreDNS builds (kindcluster pins their tags in kubeadm's configuration).
	"v1.28.15": {Kubernetes: "v1.28.15", Module: "kubernetes-v1.28", Etcd: "3.5.15", EtcdTag: "3.5.15-0", CoreDNS: "1.11.3", Pause: []string{"3.9", "3.10"}, InTreeCloud: true},
	"v1.29.15": {Kubernetes: "v1.29.15", Module: "kubernetes-v1.29", Etcd: "3.5.15", EtcdTag: "3.5.15-0", CoreDNS: "1.11.3", Pause: []string{"3.9", "3.10"}, InTreeCloud: true, ClusterAdmins: true},
	"v1.30.14": {Kubernetes: "v1.30.14", Module: "kubernetes-v1.30", Etcd: "3.5.15", EtcdTag: "3.5.15-0", CoreDNS: "1.11.3", Pause: []string{"3.9", "3.10"}, InTreeCloud: true, ClusterAdmins: true},
	// v1.31.4 is the newest 1.31 patch whose every staging module the Go
	// module proxy here serves (v1.31.5 and later lack kube-proxy,
	// kube-scheduler and others).
	"v1.31.4": {Kubernetes: "v1.31.4", Module: "kubernetes-v1.31", Etcd: "3.5.15", EtcdTag: "3.5.15-0", CoreDNS: "1.11.3", Pause: []string{"3.10"}, ClusterAdmins: true},
}

// DefaultVersions are built by `handover images build` with no arguments.
var DefaultVersions = []string{"v1.30.14", "v1.31.4"}

// SandboxPause is the pause tag containerd's sandbox_image names.
const SandboxPause = "3.10"

// Lookup returns the release for a version or an error listing the choices.
func Lookup(version string) (Release, error) {
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}
	r, ok := Releases[version]
	if !ok {
		return Release{}, fmt.Errorf("unknown Kubernetes version %q: choose one of %s", version, strings.Join(Known(), ", "))
	}
	return r, nil
}

// Known lists supported versions, sorted.
func Known() []string {
	out := make([]string, 0, len(Releases))
	for v := range Releases {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// NodeImage is the local image name for a version's node image.
func NodeImage(version string) string { return "handover.local/node:" + version }

// Minor returns "1.30" for "v1.30.14".
func (r Release) Minor() string {
	parts := strings.SplitN(strings.TrimPrefix(r.Kubernetes, "v"), ".", 3)
	return parts[0] + "." + parts[1]
}

// Pairs lists the migrations handover can rehearse as "from → to": from a
// version with the in-tree provider to itself (N → N, which the upstream
// task doc allows) or to the next minor's.
func Pairs() []string {
	var out []string
	for _, from := range Known() {
		for _, to := range Known() {
			if PairOK(from, to) {
				out = append(out, from+" → "+to)
			}
		}
	}
	return out
}

// PairOK reports whether from → to is a pair Pairs lists.
func PairOK(from, to string) bool {
	f, ferr := Lookup(from)
	t, terr := Lookup(to)
	if ferr != nil || terr != nil || !f.InTreeCloud {
		return false
	}
	fv, tv := version.MustParseGeneric(f.Kubernetes), version.MustParseGeneric(t.Kubernetes)
	return tv.Major() == fv.Major() && (tv.Minor() == fv.Minor()+1 || f.Kubernetes == t.Kubernetes)
}
