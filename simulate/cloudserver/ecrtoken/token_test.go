package ecrtoken

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A key survives its file; a file that is not one is refused.
func TestKeyFile(t *testing.T) {
	dir := t.TempDir()
	k, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "token.key")
	if err := WriteKey(p, k); err != nil {
		t.Fatal(err)
	}
	got, err := ReadKey(p)
	if err != nil || string(got) != string(k) {
		t.Fatalf("read back %x, %v; want %x", got, err, k)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	short := filepath.Join(dir, "short")
	_ = os.WriteFile(short, []byte("c2hvcnQ=\n"), 0o600)
	if _, err := ReadKey(short); err == nil || !strings.Contains(err.Error(), "32 bytes") {
		t.Errorf("a short key: %v", err)
	}
}

// A password checks only with its key, unchanged, until it expires.
func TestVerify(t *testing.T) {
	k, _ := NewKey()
	now := time.Now()
	p := Password(k, "kubelet", now.Add(time.Hour))
	if who, ok := Verify(k, p, now); !ok || who != "kubelet" {
		t.Fatalf("%q, %v", who, ok)
	}
	other, _ := NewKey()
	for name, c := range map[string]struct {
		key      []byte
		password string
		at       time.Time
	}{
		"expired":         {k, p, now.Add(2 * time.Hour)},
		"another key":     {other, p, now},
		"another caller":  {k, strings.Replace(p, "kubelet", "kube-controller-manager", 1), now},
		"not a password":  {k, "hunter2", now},
		"signature alone": {k, p[strings.LastIndexByte(p, '.'):], now},
	} {
		if _, ok := Verify(c.key, c.password, c.at); ok {
			t.Errorf("%s: checks", name)
		}
	}
}
