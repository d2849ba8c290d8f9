package nodeaccess

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// The test process's own root stands in for a node's: /proc/self/root.
func TestReadFileInRoot(t *testing.T) {
	dir := t.TempDir()
	want := "apiVersion: v1\n"
	if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(want), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(os.Getpid(), filepath.Join(dir, "pod.yaml"))
	if errors.Is(err, ErrNoRoot) {
		t.Skipf("openat2 not usable here: %v", err)
	}
	if err != nil || string(got) != want {
		t.Fatalf("ReadFile = %q, %v", got, err)
	}
	if _, err := ReadFile(os.Getpid(), filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: err = %v, want fs.ErrNotExist", err)
	}
	if ok, err := Exists(os.Getpid(), filepath.Join(dir, "pod.yaml")); !ok || err != nil {
		t.Fatalf("Exists(pod.yaml) = %v, %v", ok, err)
	}
	if ok, err := Exists(os.Getpid(), filepath.Join(dir, "missing")); ok || err != nil {
		t.Fatalf("Exists(missing) = %v, %v", ok, err)
	}
	if _, err := ReadFile(1<<30, "/etc/hostname"); !errors.Is(err, ErrNoRoot) {
		t.Fatalf("no such process: err = %v, want ErrNoRoot", err)
	}
}
