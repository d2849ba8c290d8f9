package privatefs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A link planted where handover writes is replaced or refused, and what
// it pointed at is left as it was.
func TestPlantedLinksAreNeverFollowed(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "junit.xml")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("report")); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(victim); string(raw) != "precious" {
		t.Fatalf("WriteFile wrote through the link: victim holds %q", raw)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink != 0 || fi.Mode().Perm() != 0o600 {
		t.Fatalf("after WriteFile %s is %v, want a 0600 file of its own", link, fi.Mode())
	}

	for name, open := range map[string]func(string) (*os.File, error){"OpenAppend": OpenAppend, "Create": Create, "Rewrite": Rewrite} {
		l := filepath.Join(dir, name+".log")
		if err := os.Symlink(victim, l); err != nil {
			t.Fatal(err)
		}
		if f, err := open(l); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			if f != nil {
				f.Close()
			}
			t.Errorf("%s through a link: %v, want a refusal naming the link", name, err)
		}
	}
	if raw, _ := os.ReadFile(victim); string(raw) != "precious" {
		t.Fatalf("victim changed: %q", raw)
	}
}

// Directories are made 0700, those that exist keep their mode, and a path
// someone else could steer is refused before anything is made under it.
func TestPrivateDirectories(t *testing.T) {
	base := t.TempDir()
	made := filepath.Join(base, "a", "b")
	if err := MkdirAll(made); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(base, "a"), made} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s is %v, want 0700", d, fi.Mode().Perm())
		}
	}
	shared := mkdirMode(t, filepath.Join(base, "shared"), 0o755)
	if err := MkdirAllMode(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(shared); fi.Mode().Perm() != 0o755 {
		t.Errorf("an existing 0755 directory became %v", fi.Mode().Perm())
	}

	// A 1777 directory, as /tmp: refused as the directory itself, fine
	// above it, and left exactly as it was.
	tmp := mkdirMode(t, filepath.Join(base, "tmp"), 0o777|os.ModeSticky)
	if err := MkdirAll(tmp); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("MkdirAll of a 1777 directory: %v, want a refusal", err)
	}
	if err := MkdirAll(filepath.Join(tmp, "out")); err != nil {
		t.Errorf("a directory of its own under a sticky one: %v", err)
	}
	if fi, _ := os.Stat(tmp); fi.Mode()&(os.ModePerm|os.ModeSticky) != 0o777|os.ModeSticky {
		t.Errorf("the 1777 directory became %v", fi.Mode())
	}

	// Writable by others without the sticky bit: anyone could swap what
	// is made below it.
	loose := mkdirMode(t, filepath.Join(base, "loose"), 0o777)
	if err := MkdirAll(filepath.Join(loose, "a")); err == nil {
		t.Error("MkdirAll under a 0777 directory succeeded")
	}
	if _, err := os.Stat(filepath.Join(loose, "a")); !os.IsNotExist(err) {
		t.Errorf("something was made under the loose directory: %v", err)
	}
	if fi, _ := os.Stat(loose); fi.Mode().Perm() != 0o777 {
		t.Errorf("the loose directory was re-moded to %v", fi.Mode().Perm())
	}
}

// A link anywhere on the path is refused, not followed, and nothing is made
// where it points.
func TestDirectoriesThroughLinksAreRefused(t *testing.T) {
	base, elsewhere := t.TempDir(), t.TempDir()
	planted := filepath.Join(base, "planted")
	if err := os.Symlink(elsewhere, planted); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{planted, filepath.Join(planted, "logs")} {
		if err := MkdirAll(dir); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Errorf("MkdirAll(%s): %v, want a refusal naming the link", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "logs")); !os.IsNotExist(err) {
		t.Errorf("a directory was made through the link: %v", err)
	}
}

// A directory of another user is refused unless that user ran sudo.
func TestDirectoriesOfOthers(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	theirs := filepath.Join(t.TempDir(), "theirs")
	mkdirMode(t, theirs, 0o755)
	if err := os.Chown(theirs, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SUDO_UID", "")
	if err := MkdirAll(filepath.Join(theirs, "out")); err == nil || !strings.Contains(err.Error(), "uid 4242") {
		t.Errorf("a directory of uid 4242: %v, want a refusal naming its owner", err)
	}
	t.Setenv("SUDO_UID", "4242")
	if err := MkdirAll(filepath.Join(theirs, "out")); err != nil {
		t.Errorf("the directory of the user who ran sudo: %v", err)
	}
}

func mkdirMode(t *testing.T, dir string, mode os.FileMode) string {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, mode); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Across file systems a rename fails; the copy keeps everything.
func TestCopyTreeKeepsFilesAndSkipsLinks(t *testing.T) {
	src, dst := t.TempDir(), filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(filepath.Join(src, "pods", "kube-system"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "pods", "kube-system", "0.log"), []byte("log"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/shadow", filepath.Join(src, "link")); err != nil {
		t.Fatal(err)
	}
	if err := copyTree(src, dst); err != nil {
		t.Fatal(err)
	}
	if raw, err := os.ReadFile(filepath.Join(dst, "pods", "kube-system", "0.log")); err != nil || string(raw) != "log" {
		t.Fatalf("copied log: %q %v", raw, err)
	}
	if _, err := os.Lstat(filepath.Join(dst, "link")); !os.IsNotExist(err) {
		t.Fatalf("a link was copied: %v", err)
	}
}

// A FIFO planted where a log goes is refused at once, not waited on.
func TestPlantedFIFOIsRefused(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "kwok.log")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func(string) (*os.File, error){"OpenAppend": OpenAppend, "Rewrite": Rewrite} {
		if f, err := open(fifo); err == nil {
			f.Close()
			t.Errorf("%s opened a FIFO", name)
		}
	}
}

// Files are written only into a directory nobody else may write to: a
// report given a 1777 directory is refused, and the directory stays 1777.
func TestFilesOnlyInPrivateDirectories(t *testing.T) {
	tmp := mkdirMode(t, filepath.Join(t.TempDir(), "tmp"), 0o777|os.ModeSticky)
	if err := WriteFileMode(filepath.Join(tmp, "verdicts.md"), []byte("x"), 0o644); err == nil {
		t.Error("WriteFileMode into a 1777 directory succeeded")
	}
	if f, err := Create(filepath.Join(tmp, "kwok.log")); err == nil {
		f.Close()
		t.Error("Create in a 1777 directory succeeded")
	}
	if fi, _ := os.Stat(tmp); fi.Mode()&(os.ModePerm|os.ModeSticky) != 0o777|os.ModeSticky {
		t.Errorf("the directory became %v", fi.Mode())
	}
}
