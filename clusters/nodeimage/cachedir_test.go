package nodeimage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// With no HOME the cache is the user's home from the password database,
// never a directory under /tmp that anyone could have made first.
func TestCacheDirWithoutHomeIsNotShared(t *testing.T) {
	t.Setenv("HANDOVER_CACHE", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	os.Unsetenv("HOME")
	d := DefaultCacheDir()
	if !filepath.IsAbs(d) || strings.HasPrefix(d, os.TempDir()) || strings.HasPrefix(d, "/tmp/") {
		t.Fatalf("cache directory without HOME: %q, want a private absolute one", d)
	}
}

// A cache directory others may write to, or one reached through a link, is
// refused; its mode is left as it was.
func TestCheckCacheDirRefusesSharedDirectories(t *testing.T) {
	base := t.TempDir()
	squatted := filepath.Join(base, "handover-cache")
	if err := os.Mkdir(squatted, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(squatted, 0o777); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HANDOVER_CACHE", squatted)
	if err := CheckCacheDir(); err == nil || !strings.Contains(err.Error(), "HANDOVER_CACHE") {
		t.Errorf("a 0777 cache: %v, want a refusal that says what to do", err)
	}
	if fi, _ := os.Stat(squatted); fi.Mode().Perm() != 0o777 {
		t.Errorf("the refused cache was re-moded to %v", fi.Mode().Perm())
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(t.TempDir(), link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HANDOVER_CACHE", link)
	if err := CheckCacheDir(); err == nil {
		t.Error("a cache through a link was accepted")
	}
	t.Setenv("HANDOVER_CACHE", filepath.Join(base, "mine"))
	if err := CheckCacheDir(); err != nil {
		t.Errorf("a new private cache: %v", err)
	}
}
