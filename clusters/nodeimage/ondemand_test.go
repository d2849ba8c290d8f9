package nodeimage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cluster finds what a build of an on-demand manager made from the
// build's record, and is told which build to run when the record is
// missing, of another release, or names a file that is gone.
func TestFindOnDemand(t *testing.T) {
	cache := t.TempDir()
	row := ProviderCCM{Provider: "p", Module: "m-v1.0.1", Version: "v1.0.1", Image: "r/m:v1.0.1"}
	build := "`handover images build --provider p v1.30.14`"
	if _, err := findOnDemand(cache, "v1.30.14", row); err == nil || !strings.Contains(err.Error(), build) {
		t.Errorf("nothing built: %v", err)
	}
	archive := filepath.Join(cache, "images", "m-key", "image.tar")
	if err := os.MkdirAll(filepath.Dir(archive), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(archive, []byte("tar"), 0o600); err != nil {
		t.Fatal(err)
	}
	older := row
	older.Version, older.Module = "v1.0.0", "m-v1.0.0"
	if err := recordOnDemand(cache, "v1.30.14", OnDemandBuild{Manager: older, Archives: []string{archive}}); err != nil {
		t.Fatal(err)
	}
	if _, err := findOnDemand(cache, "v1.30.14", row); err == nil || !strings.Contains(err.Error(), "not m-v1.0.1 v1.0.1") || !strings.Contains(err.Error(), build) {
		t.Errorf("another release built: %v", err)
	}
	if err := recordOnDemand(cache, "v1.30.14", OnDemandBuild{Manager: row, Archives: []string{archive}}); err != nil {
		t.Fatal(err)
	}
	got, err := findOnDemand(cache, "v1.30.14", row)
	if err != nil || len(got.Archives) != 1 || got.Archives[0] != archive {
		t.Errorf("built: %+v, %v", got, err)
	}
	if err := os.Remove(archive); err != nil {
		t.Fatal(err)
	}
	if _, err := findOnDemand(cache, "v1.30.14", row); err == nil || !strings.Contains(err.Error(), build) {
		t.Errorf("an archive gone: %v", err)
	}
}
