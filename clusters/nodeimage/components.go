package nodeimage

import (
	"context"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	kexec "sigs.k8s.io/kind/pkg/exec"
)

// ownPackages are handover's own programs that go into images.
var ownPackages = map[string]string{
	"handover-runc":     "./cmd/handover-runc",
	"handover-envoy":    "./cmd/handover-envoy",
	"handover-cni":      "./cmd/handover-cni",
	"handover-echo":     "./cmd/handover-echo",
	"handover-lb":       "./cmd/handover-lb",
	"handover-registry": "./cmd/handover-registry",
	// The simulated cloud's kubelet image credential provider plugin.
	SimCredentialProvider: "./cmd/handover-credential-provider",
}

// ownBinaries builds handover's own image programs, keyed by the source tree.
func (b *Builder) ownBinaries(ctx context.Context) (string, error) {
	src, err := b.sourceKey()
	if err != nil {
		return "", err
	}
	return b.buildGo(ctx, goBuild{Name: "handover", ModuleDir: b.SourceDir, Packages: ownPackages,
		LDFlags: "-s -w", ExtraKey: []string{src}})
}

// sourceKey hashes the Go sources of the main module.
func (b *Builder) sourceKey() (string, error) { return b.sourceKeyOf(b.SourceDir) }

// sourceKeyOf hashes the non-test Go sources (and go.mod/go.sum) under dirs,
// skipping build output and the pinned build modules.
func (b *Builder) sourceKeyOf(dirs ...string) (string, error) {
	var paths []string
	for _, root := range dirs {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "modules" || d.Name() == "bin" || d.Name() == "reports") {
				return filepath.SkipDir
			}
			name := d.Name()
			if !d.IsDir() && ((strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) || name == "go.mod" || name == "go.sum") {
				paths = append(paths, p)
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	k := &Key{}
	if err := k.AddFiles(paths...); err != nil {
		return "", err
	}
	return k.String(), nil
}

// kubeComponents are built from the Kubernetes module of a release.
var kubeComponents = []string{"kubeadm", "kubelet", "kubectl", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy"}

// kubePackages maps each binary to its package. Managers come from the
// release module's own mains, which register the simulated cloud's provider:
// the cloud-controller-manager always, and on 1.30 (the last minor with
// in-tree cloud loops) also kube-controller-manager and kubelet.
func kubePackages(r Release) map[string]string {
	pkgs := map[string]string{"cloud-controller-manager": "./cloud-controller-manager"}
	for _, c := range kubeComponents {
		pkgs[c] = "k8s.io/kubernetes/cmd/" + c
	}
	if r.InTreeCloud {
		pkgs["kube-controller-manager"] = "./kube-controller-manager"
		pkgs["kubelet"] = "./kubelet"
	}
	return pkgs
}

func (b *Builder) kubeBinaries(ctx context.Context, r Release) (string, error) {
	dir := b.repoPath("clusters", "nodeimage", "modules", r.Module)
	src, err := b.sourceKeyOf(dir, b.repoPath("simulate", "cloudprovider"))
	if err != nil {
		return "", err
	}
	return b.buildGo(ctx, goBuild{Name: "kubernetes-" + r.Kubernetes, ModuleDir: dir,
		Packages: kubePackages(r), LDFlags: kubeLDFlags(r.Kubernetes), ExtraKey: []string{src}})
}

// providerBinaries builds a row's manager, and its node manager if it has
// one, as their Dockerfiles do (-trimpath, the row's link flags), and
// returns their directory.
func (b *Builder) providerBinaries(ctx context.Context, p ProviderCCM) (string, error) {
	pkgs := map[string]string{filepath.Base(p.Binary): p.Package}
	if n := p.NodeManager; n != nil {
		pkgs[filepath.Base(n.Binary)] = n.Package
	}
	return b.buildGo(ctx, goBuild{Name: p.Module, ModuleDir: b.repoPath("clusters", "nodeimage", "modules", p.Module),
		Packages: pkgs, LDFlags: p.managerLDFlags()})
}

// providerImages are a row's images: its manager's, then its node
// manager's.
func (b *Builder) providerImages(ctx context.Context, p ProviderCCM) ([]imageSpec, error) {
	dir, err := b.providerBinaries(ctx, p)
	if err != nil {
		return nil, err
	}
	specs := []imageSpec{binaryImage([]string{p.Image}, filepath.Join(dir, filepath.Base(p.Binary)), p.Binary)}
	if n := p.NodeManager; n != nil {
		s := binaryImage([]string{n.Image}, filepath.Join(dir, filepath.Base(n.Binary)), n.Binary)
		s.User = n.User
		specs = append(specs, s)
	}
	return specs, nil
}

// credentialProviderBinary builds a provider's kubelet image credential
// provider from its release's module.
func (b *Builder) credentialProviderBinary(ctx context.Context, p ProviderCCM) (string, error) {
	name := filepath.Base(p.CredentialProvider)
	dir, err := b.buildGo(ctx, goBuild{Name: p.Module + "-credential-provider", ModuleDir: b.repoPath("clusters", "nodeimage", "modules", p.Module),
		Packages: map[string]string{name: p.CredentialProvider}, LDFlags: p.credentialProviderLDFlags()})
	return filepath.Join(dir, name), err
}

func (b *Builder) etcdBinary(ctx context.Context, r Release) (string, error) {
	return b.buildGo(ctx, goBuild{Name: "etcd-" + r.Etcd, ModuleDir: b.repoPath("clusters", "nodeimage", "modules", "etcd-"+r.Etcd),
		Packages: map[string]string{"etcd": "."}, LDFlags: "-s -w"})
}

func (b *Builder) corednsBinary(ctx context.Context, r Release) (string, error) {
	return b.buildGo(ctx, goBuild{Name: "coredns-" + r.CoreDNS, ModuleDir: b.repoPath("clusters", "nodeimage", "modules", "coredns-"+r.CoreDNS),
		Packages: map[string]string{"coredns": "."}, LDFlags: "-s -w"})
}

// pauseBinary compiles the pause program shipped in the Kubernetes module.
func (b *Builder) pauseBinary(ctx context.Context, r Release) (string, error) {
	kdir, err := moduleDir(ctx, b.repoPath("clusters", "nodeimage", "modules", r.Module), "k8s.io/kubernetes")
	if err != nil {
		return "", err
	}
	src := filepath.Join(kdir, "build", "pause", "linux", "pause.c")
	key := &Key{}
	if err := key.AddFiles(src); err != nil {
		return "", err
	}
	dir, _, err := cachedDir(b.CacheDir, "bin", "pause-"+key.String(), func(dir string) error {
		return b.step("Compiling pause", func() error {
			return kexec.CommandContext(ctx, "gcc", "-Os", "-static", "-DVERSION="+SandboxPause,
				"-o", filepath.Join(dir, "pause"), src).Run()
		})
	})
	return filepath.Join(dir, "pause"), err
}

// componentImages builds every image a release's node preloads and returns
// the archive paths.
func (b *Builder) componentImages(ctx context.Context, r Release, rootfs, own string) ([]archive, error) {
	kube, err := b.kubeBinaries(ctx, r)
	if err != nil {
		return nil, err
	}
	etcd, err := b.etcdBinary(ctx, r)
	if err != nil {
		return nil, err
	}
	coredns, err := b.corednsBinary(ctx, r)
	if err != nil {
		return nil, err
	}
	pause, err := b.pauseBinary(ctx, r)
	if err != nil {
		return nil, err
	}
	specs := []imageSpec{
		binaryImage([]string{"registry.k8s.io/etcd:" + r.EtcdTag}, filepath.Join(etcd, "etcd"), "/usr/local/bin/etcd"),
		binaryImage([]string{"registry.k8s.io/coredns/coredns:v" + r.CoreDNS}, filepath.Join(coredns, "coredns"), "/coredns"),
		binaryImage(pauseRefs(r), pause, "/pause"),
		binaryImage([]string{CNIImage}, filepath.Join(own, "handover-cni"), "/usr/local/bin/handover-cni"),
		binaryImage([]string{EchoImage}, filepath.Join(own, "handover-echo"), "/usr/local/bin/handover-echo"),
	}
	for _, c := range []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		specs = append(specs, binaryImage([]string{"registry.k8s.io/" + c + ":" + r.Kubernetes}, filepath.Join(kube, c), "/usr/local/bin/"+c))
	}
	specs = append(specs, binaryImage([]string{CCMImage(r.Kubernetes)}, filepath.Join(kube, "cloud-controller-manager"), "/usr/local/bin/cloud-controller-manager"))
	for _, p := range r.ProviderCCMs {
		more, err := b.providerImages(ctx, p)
		if err != nil {
			return nil, err
		}
		specs = append(specs, more...)
	}
	proxy, err := kubeProxyImage(r, rootfs, filepath.Join(kube, "kube-proxy"))
	if err != nil {
		return nil, err
	}
	specs = append(specs, proxy)
	var tars []archive
	for _, s := range specs {
		tar, err := b.cachedImage(s)
		if err != nil {
			return nil, err
		}
		tars = append(tars, tar)
	}
	return tars, nil
}

// Images handover ships for the cluster itself.
const (
	CNIImage  = "handover.local/cni:v1"
	EchoImage = "handover.local/echo:v1"
	// LBImage runs simcloud's load balancers (loaded into Docker, not nodes).
	LBImage = "handover.local/lb:v1"
	// RegistryImage runs simcloud's container registry (loaded into
	// Docker): handover-registry and the images it pushes at start.
	RegistryImage = "handover.local/registry:v1"
)

// CCMImage is the out-of-tree manager image of a Kubernetes version,
// preloaded into that version's node image.
func CCMImage(version string) string { return "handover.local/cloud-controller-manager:" + version }

func pauseRefs(r Release) []string {
	refs := []string{}
	for _, p := range r.Pause {
		refs = append(refs, "registry.k8s.io/pause:"+p)
	}
	return refs
}

// binaryImage is one static binary plus the base files.
func binaryImage(refs []string, src, dest string) imageSpec {
	files := append(baseFiles(), file{Path: dest, Mode: 0o755, Src: src})
	return imageSpec{Refs: refs, Files: files, Entrypoint: []string{dest}}
}

// cachedImage writes spec into the cache unless an identical one exists.
func (b *Builder) cachedImage(spec imageSpec) (archive, error) {
	key := (&Key{}).Add("refs", spec.Refs...).Add("entrypoint", spec.Entrypoint...).Add("env", spec.Env...)
	if spec.User != "" {
		key.Add("user", spec.User)
	}
	if err := key.AddImageFiles(spec.Files); err != nil {
		return archive{}, err
	}
	short := strings.NewReplacer("/", "_", ":", "_").Replace(spec.Refs[0])
	dir, _, err := cachedDir(b.CacheDir, "images", short+"-"+key.String(), func(dir string) error {
		return b.step("Assembling image "+spec.Refs[0], func() error {
			return writeImage(spec, filepath.Join(dir, "image.tar"), key.String())
		})
	})
	return archive{Path: filepath.Join(dir, "image.tar"), Key: key.String()}, err
}

// archive is a cached `docker save` file and the key it was built from.
type archive struct{ Path, Key string }

// iptablesCommands are what kube-proxy runs; they point at the mode the
// node uses, chosen at first use by the wrapper script below.
var iptablesCommands = []string{"iptables", "iptables-save", "iptables-restore", "ip6tables", "ip6tables-save", "ip6tables-restore"}

// iptablesWrapper picks the same iptables backend as the node: the kubelet
// creates KUBE-IPTABLES-HINT with the node's iptables, so that is where it is.
const iptablesWrapper = `#!/bin/sh
set -e
mode=nft
if ! xtables-nft-multi iptables-save -t mangle 2>/dev/null | grep -q KUBE-IPTABLES-HINT; then
  if xtables-legacy-multi iptables-save -t mangle 2>/dev/null | grep -q KUBE-IPTABLES-HINT; then mode=legacy; fi
fi
for c in iptables iptables-save iptables-restore ip6tables ip6tables-save ip6tables-restore; do
  ln -sf "xtables-$mode-multi" "/usr/sbin/$c"
done
exec "/usr/sbin/$(basename "$0")" "$@"
`

// kubeProxyImage adds iptables, conntrack and their libraries from the
// Debian root file system to the kube-proxy binary.
func kubeProxyImage(r Release, rootfs, binary string) (imageSpec, error) {
	c := newRootfsCopier(rootfs)
	for _, p := range []string{"/usr/sbin/xtables-nft-multi", "/usr/sbin/xtables-legacy-multi", "/usr/sbin/conntrack", "/usr/bin/busybox"} {
		if err := c.Add(p); err != nil {
			return imageSpec{}, err
		}
	}
	exts, _ := filepath.Glob(filepath.Join(rootfs, "usr/lib/x86_64-linux-gnu/xtables/*.so"))
	sort.Strings(exts)
	for _, e := range exts {
		if err := c.Add(strings.TrimPrefix(e, rootfs)); err != nil {
			return imageSpec{}, err
		}
	}
	files := append(baseFiles(), c.Files()...)
	files = append(files, mergedUsrLinks()...)
	files = append(files,
		file{Path: "/usr/local/bin/kube-proxy", Mode: 0o755, Src: binary},
		file{Path: "/usr/sbin/iptables-wrapper", Mode: 0o755, Data: []byte(iptablesWrapper)},
		file{Path: "/usr/bin/sh", Link: "busybox"}, file{Path: "/usr/bin/grep", Link: "busybox"},
		file{Path: "/usr/bin/ln", Link: "busybox"}, file{Path: "/usr/bin/basename", Link: "busybox"})
	for _, cmd := range iptablesCommands {
		files = append(files, file{Path: "/usr/sbin/" + cmd, Link: "iptables-wrapper"})
	}
	return imageSpec{Refs: []string{"registry.k8s.io/kube-proxy:" + r.Kubernetes}, Files: files,
		Entrypoint: []string{"/usr/local/bin/kube-proxy"}}, nil
}

// mergedUsrLinks recreate Debian's merged-/usr layout.
func mergedUsrLinks() []file {
	return []file{
		{Path: "/bin", Link: "usr/bin"}, {Path: "/sbin", Link: "usr/sbin"},
		{Path: "/lib", Link: "usr/lib"}, {Path: "/lib64", Link: "usr/lib64"},
	}
}
