package nodeimage

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	kexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/handover-sh/handover/waits"
)

// nodeImage assembles a release's node image unless Docker already has the
// image built from the same inputs.
func (b *Builder) nodeImage(ctx context.Context, r Release, base, own string) (string, error) {
	root, _, err := b.rootfs(ctx)
	if err != nil {
		return "", err
	}
	tars, err := b.componentImages(ctx, r, root, own)
	if err != nil {
		return "", err
	}
	files, err := b.nodeFiles(ctx, r, own)
	if err != nil {
		return "", err
	}
	for i, t := range tars {
		files = append(files, file{Path: fmt.Sprintf("/kind/images/%02d.tar", i), Mode: 0o644, Src: t.Path})
	}
	key := (&Key{}).Add("base", base)
	if err := key.AddImageFiles(files); err != nil {
		return "", err
	}
	ref := NodeImage(r.Kubernetes)
	if imageLabel(ctx, ref, KeyLabel) == key.String() {
		b.Logger.V(0).Infof(" ✓ %s is up to date", ref)
		return ref, nil
	}
	err = b.step("Assembling node image "+ref, func() error {
		return assemble(ctx, base, ref, key.String(), files)
	})
	return ref, err
}

// assemble copies files into a container of the base image, preloads the
// image archives into its containerd without unpacking them (the node's
// containerd unpacks on first use), and commits the result.
func assemble(ctx context.Context, base, ref, key string, files []file) error {
	name := "handover-build-" + key
	_ = kexec.CommandContext(ctx, "docker", "rm", "-f", name).Run()
	if err := kexec.CommandContext(ctx, "docker", "run", "-d", "--init", "--name", name, "--privileged",
		"--entrypoint", "sleep", base, "infinity").Run(); err != nil {
		return fmt.Errorf("starting build container: %w", err)
	}
	defer kexec.Command("docker", "rm", "-f", name).Run()
	layer, err := layerBytes(files)
	if err != nil {
		return err
	}
	if err := kexec.CommandContext(ctx, "docker", "cp", "-", name+":/").SetStdin(bytes.NewReader(layer)).Run(); err != nil {
		return fmt.Errorf("copying files into build container: %w", err)
	}
	if err := preload(ctx, name, files); err != nil {
		return err
	}
	return kexec.CommandContext(ctx, "docker", "commit",
		"--change", `ENTRYPOINT ["/usr/local/bin/entrypoint", "/sbin/init"]`,
		"--change", "ENV container=docker",
		"--change", "LABEL "+KeyLabel+"="+key,
		name, ref).Run()
}

func preload(ctx context.Context, name string, files []file) error {
	exec := func(args ...string) error {
		_, err := kexec.CombinedOutputLines(kexec.CommandContext(ctx, "docker", append([]string{"exec", name}, args...)...))
		return err
	}
	if err := exec("bash", "-c", "nohup containerd > /var/log/containerd-build.log 2>&1 &"); err != nil {
		return err
	}
	if err := wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, waits.Of(ctx, WaitBuildContainerd), true, func(context.Context) (bool, error) {
		return exec("ctr", "version") == nil, nil
	}); err != nil {
		return fmt.Errorf("containerd in build container: %w", err)
	}
	for _, f := range files {
		if !strings.HasPrefix(f.Path, "/kind/images/") {
			continue
		}
		if err := exec("ctr", "--namespace=k8s.io", "images", "import", "--all-platforms", "--no-unpack", f.Path); err != nil {
			return fmt.Errorf("preloading %s: %w", filepath.Base(f.Src), err)
		}
	}
	return exec("bash", "-c", "pkill containerd; while pgrep -x containerd >/dev/null; do sleep 0.1; done; rm -rf /kind/images /var/log/containerd-build.log")
}
