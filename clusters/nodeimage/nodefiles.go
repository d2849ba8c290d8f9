package nodeimage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/handover-sh/handover/clusters/cni"
)

// RuntimeWrapper is where node images carry the capability-filtering runc
// wrapper that containerd runs instead of runc.
const RuntimeWrapper = "/usr/local/bin/handover-runc"

// containerdConfig differs from kind's in three ways this host needs:
// restrict_oom_score_adj (runc cannot lower oom_score_adj without
// CAP_SYS_RESOURCE), runc started through the capability wrapper, and the CNI
// plugins where Debian installs them.
const containerdConfig = `version = 2

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:` + SandboxPause + `"
  tolerate_missing_hugepages_controller = true
  restrict_oom_score_adj = true

[plugins."io.containerd.grpc.v1.cri".containerd]
  discard_unpacked_layers = true
  snapshotter = "overlayfs"
  default_runtime_name = "runc"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = true
  BinaryName = "` + RuntimeWrapper + `"

[plugins."io.containerd.grpc.v1.cri".cni]
  bin_dir = "/usr/lib/cni"
  conf_dir = "/etc/cni/net.d"

[plugins."io.containerd.grpc.v1.cri".registry]
  config_path = "` + RegistryConfigDir + `"
`

// RegistryConfigDir holds containerd's per-registry settings (hosts.toml
// and CA certificates, one directory per registry host), where kind's
// containerd configuration has them.
const RegistryConfigDir = "/etc/containerd/certs.d"

// kindBaseFiles are taken unchanged from kind's base image sources.
var kindBaseFiles = map[string]int64{
	"usr/local/bin/entrypoint":                             0o755,
	"etc/systemd/system/kubelet.service":                   0o644,
	"etc/systemd/system/kubelet.slice":                     0o644,
	"etc/systemd/system/containerd.service":                0o644,
	"etc/systemd/system/undo-mount-hacks.service":          0o644,
	"etc/systemd/system/kubelet.service.d/10-kubeadm.conf": 0o644,
	"etc/systemd/system/kubelet.service.d/11-kind.conf":    0o644,
	"etc/sysctl.d/10-network-magic.conf":                   0o644,
	"etc/sysctl.d/10-network-security.conf":                0o644,
	"etc/default/kubelet":                                  0o644,
	"kind/bin/mount-product-files.sh":                      0o755,
	"kind/bin/undo-mount-hacks.sh":                         0o755,
	"kind/bin/create-kubelet-cgroup-v2.sh":                 0o755,
}

// enabledUnits start at boot, as `systemctl enable` would arrange.
var enabledUnits = []string{"containerd.service", "kubelet.service", "undo-mount-hacks.service"}

func (b *Builder) nodeFiles(ctx context.Context, r Release, own string) ([]file, error) {
	kube, err := b.kubeBinaries(ctx, r)
	if err != nil {
		return nil, err
	}
	var files []file
	src := filepath.Join(b.kindDir, "images", "base", "files")
	for rel, mode := range kindBaseFiles {
		p := filepath.Join(src, rel)
		if _, err := os.Stat(p); err != nil {
			return nil, fmt.Errorf("kind base-image file %s missing from the kind module: %w", rel, err)
		}
		files = append(files, file{Path: "/" + rel, Mode: mode, Src: p})
	}
	for _, u := range enabledUnits {
		files = append(files, file{Path: "/etc/systemd/system/multi-user.target.wants/" + u, Link: "/etc/systemd/system/" + u})
	}
	for _, c := range []string{"kubeadm", "kubelet", "kubectl"} {
		files = append(files, file{Path: "/usr/bin/" + c, Mode: 0o755, Src: filepath.Join(kube, c)})
	}
	files = append(files,
		file{Path: "/etc/systemd/system/systemd-binfmt.service", Link: "/dev/null"},
		file{Path: "/usr/local/bin/containerd", Link: "/usr/bin/containerd"},
		file{Path: "/etc/containerd/config.toml", Mode: 0o644, Data: []byte(containerdConfig)},
		file{Path: RuntimeWrapper, Mode: 0o755, Src: filepath.Join(own, "handover-runc")},
		file{Path: "/kind/version", Mode: 0o644, Data: []byte(r.Kubernetes)},
		file{Path: "/kind/manifests/default-cni.yaml", Mode: 0o644, Data: []byte(cni.Manifest(CNIImage))},
		file{Path: "/etc/kubernetes/manifests", Mode: 0o755, Dir: true},
		file{Path: CredentialProviderDir + "/" + SimCredentialProvider, Mode: 0o755, Src: filepath.Join(own, SimCredentialProvider)},
	)
	for _, p := range r.ProviderCCMs {
		if p.CredentialProvider == "" {
			continue
		}
		bin, err := b.credentialProviderBinary(ctx, p)
		if err != nil {
			return nil, err
		}
		files = append(files, file{Path: CredentialProviderDir + "/" + filepath.Base(bin), Mode: 0o755, Src: bin})
	}
	return files, nil
}
