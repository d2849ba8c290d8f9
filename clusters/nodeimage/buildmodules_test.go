package nodeimage

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "write the generated build-module files")

// Every Kubernetes build module's Go files are the ones rendered from
// buildmodules/: none differs, none is missing, and none is written by hand.
func TestBuildModulesAreGenerated(t *testing.T) {
	want, err := generatedBuildFiles()
	if err != nil {
		t.Fatal(err)
	}
	for path, b := range want {
		full := filepath.Join("modules", path)
		if *update {
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(full)
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s is not what buildmodules/ renders (%v): run go test ./clusters/nodeimage/ -run TestBuildModulesAreGenerated -update", full, err)
		}
	}
	for _, r := range Releases {
		err := filepath.WalkDir(filepath.Join("modules", r.Module), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
				return err
			}
			if _, ok := want[strings.TrimPrefix(path, "modules/")]; !ok {
				t.Errorf("%s is not rendered from buildmodules/: add it there", path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
