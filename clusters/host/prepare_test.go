package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/clusters/host/capfilter"
)

func TestMergeDaemonConfigKeepsOtherKeys(t *testing.T) {
	cfg := map[string]any{"log-driver": "json-file", "runtimes": map[string]any{"nvidia": map[string]any{"path": "x"}}}
	if changed, err := MergeDaemonConfig(cfg, "/w"); !changed || err != nil {
		t.Fatalf("first merge must change the config: %v", err)
	}
	if cfg["log-driver"] != "json-file" || cfg["default-runtime"] != WrapperName {
		t.Fatalf("unexpected config %v", cfg)
	}
	rt := cfg["runtimes"].(map[string]any)
	if rt["nvidia"] == nil || rt[WrapperName].(map[string]any)["path"] != "/w" {
		t.Fatalf("runtimes not merged: %v", rt)
	}
	if changed, _ := MergeDaemonConfig(cfg, "/w"); changed {
		t.Fatal("second merge must be a no-op")
	}
	if changed, _ := MergeDaemonConfig(cfg, "/other"); !changed {
		t.Fatal("a moved wrapper must update the config")
	}
}

// A host whose Docker runs another runc-compatible runtime by default
// keeps it: the wrapper hands over to it, with its own arguments, and
// `host restore` puts daemon.json back byte for byte.
func TestAnotherDefaultRuntimeIsWrappedAndRestored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.json")
	original := []byte(`{"default-runtime": "runc-alt", "runtimes": {"runc-alt": {"path": "/usr/local/bin/runc-alt", "runtimeArgs": ["--systemd-cgroup"]}}, "log-level": "warn"}`)
	if err := os.WriteFile(path, original, 0o644); err != nil {
		t.Fatal(err)
	}
	var said []string
	changed, err := configureDaemon(path, "/w", func(s string) { said = append(said, s) })
	if err != nil || !changed {
		t.Fatalf("configure: %v %v", changed, err)
	}
	if len(said) != 1 || !strings.Contains(said[0], `was "runc-alt"`) || !strings.Contains(said[0], BackupPath(path)) {
		t.Fatalf("it must say what it changes and where the original is: %q", said)
	}
	var cfg struct {
		Default  string `json:"default-runtime"`
		Runtimes map[string]struct {
			Path string
			Args []string `json:"runtimeArgs"`
		}
		LogLevel string `json:"log-level"`
	}
	raw, _ := os.ReadFile(path)
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	w := cfg.Runtimes[WrapperName]
	if cfg.Default != WrapperName || w.Path != "/w" || cfg.LogLevel != "warn" || cfg.Runtimes["runc-alt"].Path != "/usr/local/bin/runc-alt" {
		t.Fatalf("daemon.json after prepare: %s", raw)
	}
	delegate, rest := capfilter.SplitDelegate(append(w.Args, "create", "--bundle", "b", "id"))
	if delegate != "/usr/local/bin/runc-alt" || !slices.Equal(rest, []string{"--systemd-cgroup", "create", "--bundle", "b", "id"}) {
		t.Fatalf("the wrapper would run %q %v: want the host's runtime with its own arguments", delegate, rest)
	}
	// Prepare again: nothing changes, the backup stays the original.
	if changed, err := configureDaemon(path, "/w", func(string) {}); changed || err != nil {
		t.Fatalf("second prepare: %v %v", changed, err)
	}
	if form, want := reloadFor(t, path); want != "runc-alt" || !strings.Contains(string(form), `"runc-alt"`) {
		t.Fatalf("reloaded as %s, want runc-alt the default", form)
	}
	if after, _ := os.ReadFile(path); string(after) != string(original) {
		t.Fatalf("restored daemon.json %s, want %s", after, original)
	}
	if _, err := os.Stat(BackupPath(path)); !os.IsNotExist(err) {
		t.Fatalf("backup left after restore: %v", err)
	}
}

func TestNoDaemonJSONBeforeMeansNoneAfterRestore(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.json")
	if _, err := configureDaemon(path, "/w", func(string) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if form, want := reloadFor(t, path); want != "runc" || string(form) != `{"default-runtime":"runc","runtimes":{}}` {
		t.Fatalf("reloaded as %s (%s): a reload of no file would keep the wrapper", form, want)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("daemon.json left after restoring a host that had none: %v", err)
	}
}

// A default runtime that is a containerd shim has no program to run behind
// the wrapper: refused, with the fix, and the file untouched.
func TestAShimDefaultRuntimeIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.json")
	original := `{"default-runtime": "runsc", "runtimes": {"runsc": {"runtimeType": "io.containerd.runsc.v1"}}}`
	if err := os.WriteFile(path, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := configureDaemon(path, "/w", func(string) {})
	if err == nil || !strings.Contains(err.Error(), "runsc") || !strings.Contains(err.Error(), "default-runtime") {
		t.Fatalf("want a refusal naming the runtime and the fix, got %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != original {
		t.Fatalf("daemon.json changed: %s", after)
	}
}

// reloadFor restores path as Restore does, without a dockerd: it returns
// what dockerd would have been given to reload and the default runtime it
// must then show, and puts the original back.
func reloadFor(t *testing.T, path string) ([]byte, string) {
	t.Helper()
	b, ok, err := readBackup(path)
	if err != nil || !ok {
		t.Fatalf("backup: %v %v", ok, err)
	}
	form, want := reloadForm(b)
	if err := restoreDaemon(path, b); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := readBackup(path); ok {
		t.Fatal("the backup is left after restore")
	}
	return form, want
}

// A daemon.json that does not name a default runtime is reloaded with
// Docker's own named: a reload changes only what the file names, and would
// leave the wrapper the default.
func TestRestoreNamesDockersDefaultsForTheReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "daemon.json")
	original := "{\"log-level\": \"warn\"}\n"
	if err := os.WriteFile(path, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := configureDaemon(path, "/w", func(string) {}); err != nil {
		t.Fatal(err)
	}
	form, want := reloadFor(t, path)
	if want != "runc" || string(form) != `{"default-runtime":"runc","log-level":"warn","runtimes":{}}` {
		t.Fatalf("reloaded as %s (%s)", form, want)
	}
	if after, _ := os.ReadFile(path); string(after) != original {
		t.Fatalf("restored %q, want %q byte for byte", after, original)
	}
}
