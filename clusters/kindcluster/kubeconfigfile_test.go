package kindcluster

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kind's write lands in a private copy and reaches the path by a rename: a
// link planted at the path is refused and its target left untouched.
func TestKubeconfigEditedThroughAPrivateCopy(t *testing.T) {
	out := t.TempDir()
	path := filepath.Join(out, "kubeconfig")
	var seen string
	err := viaPrivateCopy(path, func(k string) error {
		seen = k
		return os.WriteFile(k, []byte("clusters: []\n"), 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(filepath.Dir(seen)) != out || seen == path {
		t.Errorf("kind was handed %s, want a file in a new directory under %s", seen, out)
	}
	if raw, _ := os.ReadFile(path); string(raw) != "clusters: []\n" {
		t.Errorf("kubeconfig holds %q", raw)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig is %v, want 0600", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(out, ".kubeconfig-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}

	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(out, "planted")
	if err := os.Symlink(victim, planted); err != nil {
		t.Fatal(err)
	}
	err = viaPrivateCopy(planted, func(k string) error { return os.WriteFile(k, []byte("x"), 0o600) })
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a planted link: %v, want a refusal", err)
	}
	if raw, _ := os.ReadFile(victim); string(raw) != "precious" {
		t.Errorf("the link's target changed: %q", raw)
	}
}
