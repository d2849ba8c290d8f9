// Package modsource gives tests the source of a module release, downloaded
// through the Go module proxy into the module cache (a warm cache answers
// without the network). Tests that hold handover's facts to upstream code
// read it from here.
package modsource

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sumless are the module paths whose releases the checksum database
// behind this proxy does not always answer for (a 404 on lookup): the
// source is read, never built or run, so their go.sum lines are not asked.
const sumless = "k8s.io,sigs.k8s.io/cloud-provider-azure"

// Dir downloads (or finds in the module cache) mod ("path@version") and
// returns its directory.
func Dir(t testing.TB, mod string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GONOSUMDB="+sumless)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v\n%s", mod, err, out)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: no source directory (%s) in %s", mod, info.Error, out)
	}
	return info.Dir
}

// Text is a file of dir, or, when path is a directory, the non-test Go
// files under it (subdirectories too) one after another. ok is false when
// path does not exist; a directory without Go files fails the test, so
// that evidence of absence is never read from nothing.
func Text(t testing.TB, dir, path string) (text string, ok bool) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(path))
	st, err := os.Stat(full)
	if os.IsNotExist(err) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	if !st.IsDir() {
		b, err := os.ReadFile(full)
		if err != nil {
			t.Fatal(err)
		}
		return string(b), true
	}
	var b strings.Builder
	files := 0
	err = filepath.WalkDir(full, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if n := d.Name(); strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.Write(data)
			b.WriteByte('\n')
			files++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("%s: no Go files under %s", dir, path)
	}
	return b.String(), true
}
