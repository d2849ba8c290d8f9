package nodeimage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	kexec "sigs.k8s.io/kind/pkg/exec"
)

// goBuild describes Go binaries built from one module.
type goBuild struct {
	Name      string            // artifact name, for progress and cache
	ModuleDir string            // directory holding go.mod
	Packages  map[string]string // output file -> package path
	LDFlags   string
	ExtraKey  []string // more inputs that decide the output (e.g. sources)
}

// buildGo builds (or finds cached) binaries and returns their directory.
func (b *Builder) buildGo(ctx context.Context, gb goBuild) (string, error) {
	key := &Key{}
	key.Add("go", b.goVersion).Add("ldflags", gb.LDFlags).Add("extra", gb.ExtraKey...)
	if err := key.AddFiles(filepath.Join(gb.ModuleDir, "go.mod"), filepath.Join(gb.ModuleDir, "go.sum")); err != nil {
		return "", fmt.Errorf("%s: %w", gb.Name, err)
	}
	names := make([]string, 0, len(gb.Packages))
	for out := range gb.Packages {
		names = append(names, out)
	}
	sort.Strings(names)
	for _, out := range names {
		key.Add(out, gb.Packages[out])
	}
	dir, hit, err := cachedDir(b.CacheDir, "bin", gb.Name+"-"+key.String(), func(dir string) error {
		return b.step(fmt.Sprintf("Building %s (%s)", gb.Name, strings.Join(names, ", ")), func() error {
			start := time.Now()
			if err := downloadModules(ctx, gb.ModuleDir); err != nil {
				return err
			}
			b.done(gb.Name, "modules downloaded", start, 0, len(names))
			for i, out := range names {
				start := time.Now()
				if err := goBuildOne(ctx, gb, out, filepath.Join(dir, out)); err != nil {
					return err
				}
				b.done(gb.Name, out, start, i+1, len(names))
			}
			return nil
		})
	})
	if hit {
		b.Logger.V(1).Infof("cached: %s", dir)
	}
	return dir, err
}

// done says one part of a long build is done, with how long it took and
// how many of the build's binaries are: a first build of Kubernetes takes
// many minutes, and a line per binary shows it moving.
func (b *Builder) done(build, part string, start time.Time, n, of int) {
	b.Logger.V(0).Infof("     %s: %s (%s; %d of %d binaries built)", build, part, time.Since(start).Round(time.Second), n, of)
}

func goBuildOne(ctx context.Context, gb goBuild, out, dest string) error {
	args := []string{"build", "-trimpath", "-o", dest}
	if gb.LDFlags != "" {
		args = append(args, "-ldflags", gb.LDFlags)
	}
	cmd := kexec.CommandContext(ctx, "go", append(args, gb.Packages[out])...)
	cmd.SetEnv(append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")...)
	return runIn(cmd, gb.ModuleDir)
}

// downloadModules fetches a module's dependencies, retrying because a module
// proxy can fail transiently; the build afterwards needs no network.
func downloadModules(ctx context.Context, dir string) error {
	var err error
	for attempt, wait := 1, 5*time.Second; attempt <= 4; attempt, wait = attempt+1, wait*2 {
		err = runIn(kexec.CommandContext(ctx, "go", "mod", "download"), dir)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return fmt.Errorf("downloading Go modules for %s (the module proxy may be unreachable): %w", dir, err)
}

// runIn runs cmd with dir as its working directory, keeping output for errors.
func runIn(cmd kexec.Cmd, dir string) error {
	lc, ok := cmd.(*kexec.LocalCmd)
	if !ok {
		return fmt.Errorf("unexpected command type %T", cmd)
	}
	lc.Dir = dir
	if _, err := kexec.CombinedOutputLines(cmd); err != nil {
		return err
	}
	return nil
}

// kubeLDFlags stamps the version kubeadm and the components report.
func kubeLDFlags(version string) string {
	v := strings.TrimPrefix(version, "v")
	parts := strings.SplitN(v, ".", 3)
	var flags []string
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		flags = append(flags,
			"-X "+pkg+".gitVersion="+version,
			"-X "+pkg+".gitMajor="+parts[0],
			"-X "+pkg+".gitMinor="+parts[1],
			"-X "+pkg+".gitTreeState=clean",
			"-X "+pkg+".buildDate=1970-01-01T00:00:00Z")
	}
	return "-s -w " + strings.Join(flags, " ")
}
