package host

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	kexec "sigs.k8s.io/kind/pkg/exec"
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
	configured, err := configureDaemon(o.DaemonJSON, o.WrapperPath)
	if err != nil {
		return err
	}
	if configured {
		record("registered " + WrapperName + " as Docker's default runtime in " + o.DaemonJSON)
	}
	return reloadIfNeeded(ctx, record)
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
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, errorf("creating %s: %w", filepath.Dir(dst), err)
	}
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, want, 0o755); err != nil {
		return false, errorf("writing %s: %w", tmp, err)
	}
	return true, os.Rename(tmp, dst)
}

// configureDaemon merges the runtime into daemon.json, keeping other keys.
func configureDaemon(path, wrapper string) (bool, error) {
	cfg := map[string]any{}
	if raw, err := os.ReadFile(path); err == nil && len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return false, errorf("%s is not valid JSON (%v): fix or remove it", path, err)
		}
	}
	updated := MergeDaemonConfig(cfg, wrapper)
	if !updated {
		return false, nil
	}
	out, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, os.WriteFile(path, append(out, '\n'), 0o644)
}

// MergeDaemonConfig sets the wrapper runtime as default in a decoded
// daemon.json and reports whether anything changed.
func MergeDaemonConfig(cfg map[string]any, wrapper string) bool {
	runtimes, _ := cfg["runtimes"].(map[string]any)
	if runtimes == nil {
		runtimes = map[string]any{}
	}
	entry, _ := runtimes[WrapperName].(map[string]any)
	if entry != nil && entry["path"] == wrapper && cfg["default-runtime"] == WrapperName {
		return false
	}
	runtimes[WrapperName] = map[string]any{"path": wrapper}
	cfg["runtimes"] = runtimes
	cfg["default-runtime"] = WrapperName
	return true
}

// reloadIfNeeded makes dockerd re-read daemon.json (runtimes and
// default-runtime are reloadable with SIGHUP) and checks the result.
func reloadIfNeeded(ctx context.Context, record func(string)) error {
	if defaultRuntime(ctx) == WrapperName {
		return nil
	}
	raw, err := os.ReadFile("/var/run/docker.pid")
	if err != nil {
		return errorf("cannot find dockerd's pid to reload it: %w; restart Docker yourself", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		return errorf("bad /var/run/docker.pid: %w", err)
	}
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		return errorf("reloading dockerd: %w", err)
	}
	for i := 0; i < 50; i++ {
		if defaultRuntime(ctx) == WrapperName {
			record("reloaded dockerd")
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return errorf("dockerd did not switch its default runtime to %s; restart Docker and run again", WrapperName)
}

func defaultRuntime(ctx context.Context) string {
	out, err := kexec.Output(kexec.CommandContext(ctx, "docker", "info", "--format", "{{.DefaultRuntime}}"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
