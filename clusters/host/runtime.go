package host

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	kexec "sigs.k8s.io/kind/pkg/exec"

	"github.com/handover-sh/handover/internal/privatefs"
)

// ensureCapabilityWrapper registers the wrapper as Docker's default runtime
// when, and only when, the bounding set lacks capabilities.
func ensureCapabilityWrapper(ctx context.Context, o Options, record func(string)) error {
	missing, err := MissingCapabilities()
	if err != nil {
		return err
	}
	if len(missing) == 0 {
		return nil
	}
	changed, err := installFile(o.WrapperSource, o.WrapperPath)
	if err != nil {
		return err
	}
	if changed {
		record("installed capability-filtering runtime " + o.WrapperPath + " (host lacks " + strings.Join(missing, ", ") + ")")
	}
	configured, err := configureDaemon(o.DaemonJSON, o.WrapperPath, record)
	if err != nil {
		return err
	}
	if configured {
		record("registered " + WrapperName + " as Docker's default runtime in " + o.DaemonJSON)
	}
	return reloadIfNeeded(ctx, o.DockerPIDFile, record)
}

// installFile copies src to dst unless dst already has the same bytes.
func installFile(src, dst string) (bool, error) {
	want, err := os.ReadFile(src)
	if err != nil {
		return false, errorf("reading wrapper source %s: %w", src, err)
	}
	if have, err := os.ReadFile(dst); err == nil && bytes.Equal(have, want) {
		return false, nil
	}
	if err := privatefs.MkdirAllMode(filepath.Dir(dst), 0o755); err != nil {
		return false, errorf("creating %s: %w", filepath.Dir(dst), err)
	}
	return true, privatefs.WriteFileMode(dst, want, 0o755)
}

// reloadIfNeeded makes dockerd take the wrapper as its default runtime.
func reloadIfNeeded(ctx context.Context, pidFile string, record func(string)) error {
	if defaultRuntime(ctx) == WrapperName {
		return nil
	}
	reloaded, err := reloadDocker(ctx, pidFile, func(rt string) bool { return rt == WrapperName })
	if err != nil {
		return errorf("switching dockerd's default runtime to %s: %w, then run again", WrapperName, err)
	}
	if !reloaded {
		return errorf("cannot find dockerd's pid to reload it (no %s): restart Docker yourself", pidFile)
	}
	record("reloaded dockerd")
	return nil
}

func defaultRuntime(ctx context.Context) string {
	out, err := kexec.Output(kexec.CommandContext(ctx, "docker", "info", "--format", "{{.DefaultRuntime}}"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
