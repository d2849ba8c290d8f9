package nodeimage

import (
	"os"
	"path/filepath"
	"testing"
)

// The in-tree kubelets' credential provider is one file per release module
// (each compiles against its own release's credentialprovider types): the
// copies stay the same, and every release with in-tree cloud loops has one.
func TestKubeletCredentialsAreOneFile(t *testing.T) {
	var want []byte
	for _, r := range Releases {
		if !r.InTreeCloud {
			continue
		}
		path := filepath.Join("modules", r.Module, "kubelet", "credentials.go")
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", r.Kubernetes, err)
		}
		if want == nil {
			want = got
			continue
		}
		if string(got) != string(want) {
			t.Errorf("%s differs from the other releases' copy", path)
		}
	}
	if want == nil {
		t.Fatal("no release with in-tree cloud loops")
	}
}
