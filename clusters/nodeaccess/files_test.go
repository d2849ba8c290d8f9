package nodeaccess

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/handover-sh/handover/internal/boundedfile"
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

func TestWriteFileInRoot(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "manifests", "deep", "kcm.yaml")
	if err := WriteFile(os.Getpid(), path, []byte("v1\n"), 0o600); errors.Is(err, ErrNoRoot) {
		t.Skipf("openat2 not usable here: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(os.Getpid(), path, []byte("v2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "v2\n" {
		t.Fatalf("file = %q, %v", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode = %v, want 0600", fi.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "manifests", "deep", ".handover-*")); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
	if err := WriteFile(os.Getpid(), dir+"/", nil, 0o644); err == nil {
		t.Fatal("want an error for a directory path")
	}
}

// A node's absolute symlink resolves inside the node's root, never to the
// host's file it names.
func TestWriteFileStaysInRoot(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	// "etc" names outside by its host path, which the root holds too.
	if err := os.MkdirAll(filepath.Join(root, outside), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "etc")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "target"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	rfd, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rfd.Close()
	if err := writeIn(int(rfd.Fd()), "/etc/x", []byte("x"), 0o644); errors.Is(err, ErrNoRoot) {
		t.Skipf("openat2 not usable here: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, outside, "x")); err != nil {
		t.Fatalf("not written inside the root: %v", err)
	}
	// Replacing a symlink replaces the link, not what it names.
	if err := writeIn(int(rfd.Fd()), "/link", []byte("y"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("wrote outside the root: %v", ents)
	}
}

// A log followed in a node whose path is an absolute symlink is read from
// the node, not from the host file of the same name (as opening it by its
// /proc/PID/root path would).
func TestOpenStaysInRoot(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("host"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, outside), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, secret), []byte("node"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "audit.log")); err != nil {
		t.Fatal(err)
	}
	rfd, err := os.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rfd.Close()
	f, err := openIn(int(rfd.Fd()), "/audit.log")
	if errors.Is(err, ErrNoRoot) {
		t.Skipf("openat2 not usable here: %v", err)
	} else if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || string(got) != "node" {
		t.Fatalf("read %q, %v: want the node's file", got, err)
	}
}

// A PID whose root is the host's (a remembered node PID now reused by a
// host process) is no node: refused, so callers fall back to the node's
// own commands.
func TestHostRootRefused(t *testing.T) {
	sharesHostRoot = false
	defer func() { sharesHostRoot = true }()
	dir := t.TempDir()
	if err := WriteFile(os.Getpid(), filepath.Join(dir, "x"), []byte("x"), 0o600); !errors.Is(err, ErrNoRoot) {
		t.Fatalf("write through the host's root: err = %v, want ErrNoRoot", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("written on the host: %v", err)
	}
	if _, err := ReadFile(os.Getpid(), "/etc/hostname"); !errors.Is(err, ErrNoRoot) {
		t.Fatalf("read through the host's root: err = %v, want ErrNoRoot", err)
	}
}

// A FIFO planted in a node where a followed log or a read file should be is
// refused at once: opening it would wait for a writer forever, and the
// observer waiting on that open could not stop. A device is refused too.
func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "audit.log"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(root, "audit.log"), "/dev/zero", root} {
		done := make(chan error, 2)
		go func() {
			f, err := Open(os.Getpid(), path)
			if f != nil {
				f.Close()
			}
			done <- err
			_, err = ReadFile(os.Getpid(), path)
			done <- err
		}()
		for range 2 {
			select {
			case err := <-done:
				if errors.Is(err, ErrNoRoot) {
					t.Skipf("openat2 not usable here: %v", err)
				}
				if !errors.Is(err, boundedfile.ErrNotRegular) {
					t.Fatalf("%s: err = %v, want %v", path, err, boundedfile.ErrNotRegular)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: still opening after 5s", path)
			}
		}
	}
}
