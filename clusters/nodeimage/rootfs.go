package nodeimage

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	kexec "sigs.k8s.io/kind/pkg/exec"
)

// debianSuite is the Debian release node images are built from.
const debianSuite = "bookworm"

// rootfsPackages are installed into the node root file system: what kind's
// base image installs, plus Debian's containerd, runc and CNI plugins, and
// static busybox and bash that small service images borrow.
var rootfsPackages = []string{
	"systemd", "systemd-sysv", "dbus", "conntrack", "iptables", "nftables", "iproute2",
	"ethtool", "util-linux", "mount", "kmod", "libseccomp2", "pigz", "bash",
	"ca-certificates", "curl", "jq", "procps", "e2fsprogs", "iputils-ping",
	"containerd", "runc", "containernetworking-plugins", "busybox-static", "bash-static",
}

// rootfsRecipe versions the post-processing below; bump it when it changes.
const rootfsRecipe = "3"

// rootfs returns a cached Debian root file system directory.
func (b *Builder) rootfs(ctx context.Context) (string, string, error) {
	key := (&Key{}).Add("debian", debianSuite, b.Mirror, rootfsRecipe).Add("packages", rootfsPackages...).String()
	dir, _, err := cachedDir(b.CacheDir, "rootfs", key, func(dir string) error {
		return b.step("Bootstrapping Debian "+debianSuite+" root file system", func() error {
			target := filepath.Join(dir, "rootfs")
			cmd := kexec.CommandContext(ctx, "debootstrap", "--variant=minbase",
				"--include="+strings.Join(rootfsPackages, ","), debianSuite, target, b.Mirror)
			if _, err := kexec.CombinedOutputLines(cmd); err != nil {
				return fmt.Errorf("debootstrap (needs root and the Debian mirror): %w", err)
			}
			return postProcessRootfs(target)
		})
	})
	return filepath.Join(dir, "rootfs"), key, err
}

// postProcessRootfs trims services a node container must not start, as kind's
// base image does, and drops package caches.
func postProcessRootfs(root string) error {
	globs := []string{
		"lib/systemd/system/sysinit.target.wants/systemd-tmpfiles-setup.service",
		"lib/systemd/system/multi-user.target.wants/*",
		"etc/systemd/system/*.wants/*",
		"lib/systemd/system/local-fs.target.wants/*",
		"lib/systemd/system/sockets.target.wants/*udev*",
		"lib/systemd/system/sockets.target.wants/*initctl*",
		"lib/systemd/system/basic.target.wants/*",
		"var/cache/apt/archives/*.deb",
		"var/lib/apt/lists/*_*",
		"etc/containerd/config.toml",
	}
	for _, g := range globs {
		matches, _ := filepath.Glob(filepath.Join(root, g))
		for _, m := range matches {
			if err := os.RemoveAll(m); err != nil {
				return err
			}
		}
	}
	// O_NOFOLLOW: an absolute link in the root would name the host's file.
	f, err := os.OpenFile(filepath.Join(root, "etc/systemd/journald.conf"), os.O_APPEND|os.O_WRONLY|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString("ReadKMsg=no\n")
	return err
}

// baseImage imports the root file system as a Docker image.
func (b *Builder) baseImage(ctx context.Context) (string, error) {
	root, key, err := b.rootfs(ctx)
	if err != nil {
		return "", err
	}
	ref := "handover.local/base:" + key
	if imageExists(ctx, ref) {
		return ref, nil
	}
	err = b.step("Importing base image "+ref, func() error {
		tarCmd := kexec.CommandContext(ctx, "tar", "-C", root, "-c", ".")
		return kexec.RunWithStdoutReader(tarCmd, func(r io.Reader) error {
			return kexec.CommandContext(ctx, "docker", "import", "-", ref).SetStdin(r).Run()
		})
	})
	return ref, err
}

func imageExists(ctx context.Context, ref string) bool {
	return kexec.CommandContext(ctx, "docker", "image", "inspect", ref).Run() == nil
}

// imageLabel returns a label of a local image ("" if absent).
func imageLabel(ctx context.Context, ref, label string) string {
	out, err := kexec.Output(kexec.CommandContext(ctx, "docker", "image", "inspect", "--format",
		fmt.Sprintf("{{ index .Config.Labels %q }}", label), ref))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
