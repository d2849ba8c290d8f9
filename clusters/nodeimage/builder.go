package nodeimage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	kexec "sigs.k8s.io/kind/pkg/exec"
	"sigs.k8s.io/kind/pkg/log"
)

// Builder builds node images. Create it with NewBuilder.
type Builder struct {
	Logger    log.Logger
	CacheDir  string
	SourceDir string // root of the handover source tree
	Mirror    string // Debian mirror for debootstrap

	goVersion string
	kindDir   string
}

// NewBuilder checks the build tools and finds the kind module.
func NewBuilder(ctx context.Context, logger log.Logger, sourceDir, cacheDir string) (*Builder, error) {
	b := &Builder{Logger: logger, CacheDir: cacheDir, SourceDir: sourceDir, Mirror: "http://deb.debian.org/debian"}
	for _, tool := range []string{"go", "docker", "debootstrap", "gcc"} {
		if _, err := kexec.Output(kexec.Command("sh", "-c", "command -v "+tool)); err != nil {
			return nil, fmt.Errorf("%s is not installed: run `handover host prepare` (it installs what the image build needs)", tool)
		}
	}
	out, err := kexec.Output(kexec.CommandContext(ctx, "go", "env", "GOVERSION"))
	if err != nil {
		return nil, fmt.Errorf("reading Go version: %w", err)
	}
	b.goVersion = strings.TrimSpace(string(out))
	if b.kindDir, err = moduleDir(ctx, sourceDir, "sigs.k8s.io/kind"); err != nil {
		return nil, err
	}
	return b, nil
}

// moduleDir finds a dependency's directory in the module cache.
func moduleDir(ctx context.Context, dir, module string) (string, error) {
	cmd := kexec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", module)
	cmd.(*kexec.LocalCmd).Dir = dir
	var out []string
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		if out, err = kexec.OutputLines(cmd); err == nil && len(out) == 1 && out[0] != "" {
			return out[0], nil
		}
		_ = downloadModules(ctx, dir)
		cmd = kexec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Dir}}", module)
		cmd.(*kexec.LocalCmd).Dir = dir
	}
	return "", fmt.Errorf("locating module %s from %s: %v", module, dir, err)
}

// Build builds the node image of each version and returns their names.
func (b *Builder) Build(ctx context.Context, versions []string) ([]string, error) {
	plan, err := Plan(versions, nil)
	if err != nil {
		return nil, err
	}
	return b.BuildPlan(ctx, plan)
}

// BuildPlan builds each planned release's node image and on-demand
// managers, and returns the node images' names.
func (b *Builder) BuildPlan(ctx context.Context, plan []Planned) ([]string, error) {
	base, err := b.baseImage(ctx)
	if err != nil {
		return nil, err
	}
	own, err := b.ownBinaries(ctx)
	if err != nil {
		return nil, err
	}
	if err := b.loadBalancerImage(ctx, own); err != nil {
		return nil, err
	}
	if err := b.simcloudLBImage(ctx, own); err != nil {
		return nil, err
	}
	if err := b.simcloudRegistryImage(ctx, own); err != nil {
		return nil, err
	}
	var names []string
	for _, p := range plan {
		img, err := b.nodeImage(ctx, p.Release, base, own)
		if err != nil {
			return names, fmt.Errorf("node image %s: %w", p.Release.Kubernetes, err)
		}
		names = append(names, img)
		if err := b.buildOnDemand(ctx, p); err != nil {
			return names, err
		}
	}
	return names, nil
}

// step logs a long operation's start and its duration when it ends.
func (b *Builder) step(title string, fn func() error) error {
	b.Logger.V(0).Infof(" • %s ...", title)
	start := time.Now()
	if err := b.beating(title, start, fn); err != nil {
		b.Logger.V(0).Infof(" ✗ %s failed after %s", title, time.Since(start).Round(time.Second))
		return err
	}
	b.Logger.V(0).Infof(" ✓ %s (%s)", title, time.Since(start).Round(100*time.Millisecond))
	return nil
}

// heartbeatEvery is how often a long step says it is still at work: a
// Kubernetes release compiles for minutes with nothing else to print.
var heartbeatEvery = time.Minute

// beating runs fn with the heartbeat on, stopped before fn's end is told.
func (b *Builder) beating(title string, start time.Time, fn func() error) error {
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() { defer close(stopped); b.heartbeat(title, start, done) }()
	defer func() { close(done); <-stopped }()
	return fn()
}

// heartbeat says, every heartbeatEvery until done, how long the step has
// taken so far.
func (b *Builder) heartbeat(title string, start time.Time, done <-chan struct{}) {
	t := time.NewTicker(heartbeatEvery)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
			b.Logger.V(0).Infof("   … %s: %s so far", title, time.Since(start).Round(time.Second))
		}
	}
}

// repoPath joins parts under the source tree.
func (b *Builder) repoPath(parts ...string) string {
	return filepath.Join(append([]string{b.SourceDir}, parts...)...)
}

// FindSourceDir walks up from dir to the handover source tree's root.
func FindSourceDir(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		raw, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.Contains(string(raw), "module github.com/handover-sh/handover\n") {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("not inside the handover source tree (from %s): run from a checkout or pass --source", dir)
		}
	}
}
