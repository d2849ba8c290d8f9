package nodeimage

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A large artifact's sum is kept beside it and reused while its size and
// modification time hold; a change is hashed again. Outside a finished
// cache directory nothing is written.
func TestFileSumSidecar(t *testing.T) {
	loose := filepath.Join(t.TempDir(), "libc.so.6")
	if err := os.WriteFile(loose, make([]byte, sidecarMin), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := fileSum(loose); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(loose), ".libc.so.6.sha256")); err == nil {
		t.Fatal("a sidecar beside a file outside the cache")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".done"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "kubelet")
	big := make([]byte, sidecarMin)
	if err := os.WriteFile(p, big, 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := fileSum(p)
	if err != nil {
		t.Fatal(err)
	}
	side := filepath.Join(filepath.Dir(p), ".kubelet.sha256")
	if _, err := os.Stat(side); err != nil {
		t.Fatalf("no sidecar: %v", err)
	}
	if again, _ := fileSum(p); again != first {
		t.Fatalf("reused sum %s, want %s", again, first)
	}
	big[0] = 1
	if err := os.WriteFile(p, big, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(p, time.Now(), time.Now().Add(time.Second))
	if changed, _ := fileSum(p); changed == first {
		t.Fatal("a changed file kept its old sum")
	}
}
