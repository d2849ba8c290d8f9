package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/handover-sh/handover/clusters/host/capfilter"
	"github.com/handover-sh/handover/internal/privatefs"
)

// Docker's own runtime names: its default is runc under any of them.
var dockerRuncNames = map[string]bool{"": true, "runc": true, "io.containerd.runc.v2": true}

// MergeDaemonConfig makes the wrapper Docker's default runtime in a
// decoded daemon.json and reports whether anything changed. Another
// default runtime the host had (nvidia, crun, a runc of its own) is kept:
// the wrapper hands over to it (capfilter.DelegateFlag) with the arguments
// Docker gave it, instead of to runc. A default runtime the wrapper cannot
// run in front of (a containerd shim, given by runtimeType) is an error
// that says what to do.
func MergeDaemonConfig(cfg map[string]any, wrapper string) (bool, error) {
	runtimes, _ := cfg["runtimes"].(map[string]any)
	if runtimes == nil {
		runtimes = map[string]any{}
	}
	want := map[string]any{"path": wrapper}
	current, _ := cfg["default-runtime"].(string)
	if current == WrapperName {
		if old, _ := runtimes[WrapperName].(map[string]any); old != nil && old["runtimeArgs"] != nil {
			want["runtimeArgs"] = old["runtimeArgs"] // the runtime it already wraps
		}
	} else if !dockerRuncNames[current] {
		args, err := delegateArgs(current, runtimes[current])
		if err != nil {
			return false, err
		}
		want["runtimeArgs"] = args
	}
	if old, _ := json.Marshal(runtimes[WrapperName]); bytes.Equal(old, mustJSON(want)) && current == WrapperName {
		return false, nil
	}
	runtimes[WrapperName] = want
	cfg["runtimes"] = runtimes
	cfg["default-runtime"] = WrapperName
	return true, nil
}

// delegateArgs are the wrapper's runtimeArgs that run the host's own
// default runtime behind it, with that runtime's own arguments.
func delegateArgs(name string, entry any) ([]any, error) {
	rt, _ := entry.(map[string]any)
	path, _ := rt["path"].(string)
	if path == "" {
		return nil, fmt.Errorf("the default runtime %q of Docker is not a runc-compatible program (no path in daemon.json's runtimes; a containerd shim?), so handover cannot run its capability filter in front of it: "+
			"set \"default-runtime\" back to runc in /etc/docker/daemon.json for the rehearsal, or run handover on a host whose capability bounding set is full", name)
	}
	args := []any{capfilter.DelegateFlag + "=" + path}
	if more, ok := rt["runtimeArgs"].([]any); ok {
		args = append(args, more...)
	}
	return args, nil
}

func mustJSON(v any) []byte {
	raw, _ := json.Marshal(v)
	return raw
}

// daemonBackup records daemon.json as it was before handover first changed
// it, so `host restore` can put it back.
type daemonBackup struct {
	Existed bool   `json:"existed"`
	Content []byte `json:"content,omitempty"`
	Wrapper string `json:"wrapper"`
}

// BackupPath is where Prepare keeps daemon.json as it found it.
func BackupPath(daemonJSON string) string { return daemonJSON + ".before-handover" }

// configureDaemon merges the wrapper into daemon.json, keeping every other
// key: it saves the original first (once: the backup is always of the file
// before handover), says what it will change, and replaces the file whole.
func configureDaemon(path, wrapper string, say func(string)) (bool, error) {
	cfg := map[string]any{}
	raw, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false, errorf("reading %s: %w", path, err)
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &cfg); err != nil {
			return false, errorf("%s is not valid JSON (%v): fix or remove it", path, err)
		}
	}
	previous, _ := cfg["default-runtime"].(string)
	updated, err := MergeDaemonConfig(cfg, wrapper)
	if err != nil || !updated {
		return false, err
	}
	if err := backupOnce(path, daemonBackup{Existed: existed, Content: raw, Wrapper: wrapper}); err != nil {
		return false, err
	}
	say(fmt.Sprintf("will set Docker's default runtime to %s in %s (was %q; kept behind the wrapper unless runc; original saved as %s; `handover host restore` puts it back)",
		WrapperName, path, previous, BackupPath(path)))
	out, _ := json.MarshalIndent(cfg, "", "  ")
	if err := privatefs.MkdirAllMode(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, privatefs.WriteFileMode(path, append(out, '\n'), 0o644)
}

func backupOnce(path string, b daemonBackup) error {
	if _, err := os.Stat(BackupPath(path)); err == nil {
		return nil
	}
	return privatefs.WriteFile(BackupPath(path), mustJSON(b))
}

// readBackup reads what prepare saved; ok is false when there is nothing
// to restore.
func readBackup(path string) (b daemonBackup, ok bool, err error) {
	raw, err := os.ReadFile(BackupPath(path))
	if errors.Is(err, os.ErrNotExist) {
		return b, false, nil
	}
	if err != nil {
		return b, false, err
	}
	if err := json.Unmarshal(raw, &b); err != nil {
		return b, false, errorf("%s is not handover's backup (%v): restore %s by hand", BackupPath(path), err, path)
	}
	return b, true, nil
}

// reloadForm is the original configuration as dockerd must read it on a
// reload to drop the wrapper: a reload changes only what the file names,
// so a file without "default-runtime" (or no file) would leave the
// wrapper the default until dockerd restarts. It names Docker's defaults
// where the original is silent, and wantRuntime is the default runtime the
// reload must show.
func reloadForm(b daemonBackup) (form []byte, wantRuntime string) {
	cfg := map[string]any{}
	if b.Existed && len(bytes.TrimSpace(b.Content)) > 0 {
		if err := json.Unmarshal(b.Content, &cfg); err != nil {
			return b.Content, "" // prepare never wrote over such a file
		}
	}
	if _, ok := cfg["default-runtime"].(string); !ok {
		cfg["default-runtime"] = "runc"
	}
	if _, ok := cfg["runtimes"]; !ok {
		cfg["runtimes"] = map[string]any{}
	}
	return mustJSON(cfg), cfg["default-runtime"].(string)
}

// restoreDaemon puts daemon.json back byte for byte as it was before
// handover (or removes it) and removes the wrapper and the backup.
func restoreDaemon(path string, b daemonBackup) error {
	var err error
	if b.Existed {
		err = privatefs.WriteFileMode(path, b.Content, 0o644)
	} else if err = os.Remove(path); errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if err != nil {
		return err
	}
	if b.Wrapper != "" {
		_ = os.Remove(b.Wrapper)
	}
	return os.Remove(BackupPath(path))
}
