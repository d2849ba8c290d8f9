package privatefs

import (
	"os"
	"path/filepath"
	"strings"
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

func TestPrivateDirectories(t *testing.T) {
	base := t.TempDir()
	loose := filepath.Join(base, "loose")
	if err := os.Mkdir(loose, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(filepath.Join(loose, "a", "b")); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(loose); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{loose, filepath.Join(loose, "a", "b")} {
		if fi, _ := os.Stat(d); fi.Mode().Perm() != 0o700 {
			t.Errorf("%s is %v, want 0700", d, fi.Mode().Perm())
		}
	}
	elsewhere := t.TempDir()
	planted := filepath.Join(base, "planted")
	if err := os.Symlink(elsewhere, planted); err != nil {
		t.Fatal(err)
	}
	if err := MkdirAll(planted); err == nil {
		t.Fatal("MkdirAll accepted a link to another directory")
	}
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
