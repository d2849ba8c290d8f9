package nodeimage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	kexec "sigs.k8s.io/kind/pkg/exec"
)

// KeyLabel marks images with the cache key they were built from.
const KeyLabel = "dev.handover.key"

var lbImageConst = regexp.MustCompile(`const Image = "([^"]+)"`)

// KindLoadBalancerImage reads the balancer image name kind runs for HA
// clusters from the kind module's source, so a kind upgrade cannot silently
// leave the stand-in under a stale name.
func KindLoadBalancerImage(kindDir string) (string, error) {
	p := filepath.Join(kindDir, "pkg", "cluster", "internal", "loadbalancer", "const.go")
	raw, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("reading kind's load balancer image name: %w", err)
	}
	m := lbImageConst.FindSubmatch(raw)
	if m == nil {
		return "", fmt.Errorf("no `const Image` in %s: kind changed how it names its balancer", p)
	}
	return string(m[1]), nil
}

// busyboxApplets are the commands kind's balancer bootstrap and config
// updates run besides bash.
var busyboxApplets = []string{"sh", "mkdir", "cp", "chmod", "mv", "sleep", "cat", "ls", "rm", "echo", "test", "ps"}

// loadBalancerImage loads the stand-in for kind's Envoy balancer into Docker
// under the exact name kind runs: bash and busybox for kind's bootstrap
// command, and handover-envoy installed as `envoy`.
func (b *Builder) loadBalancerImage(ctx context.Context, own string) error {
	ref, err := KindLoadBalancerImage(b.kindDir)
	if err != nil {
		return err
	}
	root, _, err := b.rootfs(ctx)
	if err != nil {
		return err
	}
	files := append(baseFiles(), mergedUsrLinks()...)
	files = append(files,
		file{Path: "/usr/bin/busybox", Mode: 0o755, Src: filepath.Join(root, "usr/bin/busybox")},
		file{Path: "/usr/bin/bash", Mode: 0o755, Src: filepath.Join(root, "usr/bin/bash-static")},
		file{Path: "/usr/local/bin/envoy", Mode: 0o755, Src: filepath.Join(own, "handover-envoy")},
		file{Path: "/home/envoy", Mode: 0o755, Dir: true},
	)
	for _, a := range busyboxApplets {
		files = append(files, file{Path: "/usr/bin/" + a, Link: "busybox"})
	}
	tar, err := b.cachedImage(imageSpec{Refs: []string{ref}, Files: files})
	if err != nil {
		return err
	}
	return b.dockerLoad(ctx, ref, tar)
}

// simcloudLBImage loads the image of simcloud's load-balancer containers.
func (b *Builder) simcloudLBImage(ctx context.Context, own string) error {
	tar, err := b.cachedImage(binaryImage([]string{LBImage}, filepath.Join(own, "handover-lb"), "/usr/local/bin/handover-lb"))
	if err != nil {
		return err
	}
	return b.dockerLoad(ctx, LBImage, tar)
}

// dockerLoad loads an archive unless Docker already has that exact image.
func (b *Builder) dockerLoad(ctx context.Context, ref string, tar archive) error {
	if imageLabel(ctx, ref, KeyLabel) == tar.Key {
		return nil
	}
	return b.step("Loading "+ref+" into Docker", func() error {
		f, err := os.Open(tar.Path)
		if err != nil {
			return err
		}
		defer f.Close()
		return kexec.CommandContext(ctx, "docker", "load").SetStdin(f).Run()
	})
}

// RegistrySeeds are the images in the registry image, each as
// handover-registry's --seed FILE=REPOSITORY:TAG: the echo workload, for
// pods that pull it through the cloud's registry.
var RegistrySeeds = []string{"/seed/echo.tar=" + EchoRepository}

// EchoRepository is the echo image's repository and tag in the cloud's
// registry.
const EchoRepository = "handover/echo:v1"

// simcloudRegistryImage loads the image of simcloud's registry container:
// handover-registry and the echo image's archive.
func (b *Builder) simcloudRegistryImage(ctx context.Context, own string) error {
	echo, err := b.cachedImage(binaryImage([]string{EchoImage}, filepath.Join(own, "handover-echo"), "/usr/local/bin/handover-echo"))
	if err != nil {
		return err
	}
	spec := binaryImage([]string{RegistryImage}, filepath.Join(own, "handover-registry"), "/usr/local/bin/handover-registry")
	spec.Files = append(spec.Files, file{Path: "/seed", Mode: 0o755, Dir: true}, file{Path: "/seed/echo.tar", Mode: 0o644, Src: echo.Path})
	tar, err := b.cachedImage(spec)
	if err != nil {
		return err
	}
	return b.dockerLoad(ctx, RegistryImage, tar)
}
