package nodeimage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/handover-sh/handover/internal/privatefs"
)

// A build of an on-demand manager leaves a record in the cache naming
// what it made, so that a cluster finds the files without the source tree
// or a build: `handover cluster create` runs anywhere, and a build is
// asked for by name when the record is missing or names another release
// of the manager.

// onDemandRecord is where the record of a release's on-demand manager of
// a provider is kept.
func onDemandRecord(cacheDir, kubernetes, provider string) string {
	return filepath.Join(cacheDir, "on-demand", provider+"-"+kubernetes+".json")
}

// recordOnDemand keeps what a build made.
func recordOnDemand(cacheDir, kubernetes string, built OnDemandBuild) error {
	raw, err := json.MarshalIndent(built, "", "  ")
	if err != nil {
		return err
	}
	path := onDemandRecord(cacheDir, kubernetes, built.Manager.Provider)
	if err := privatefs.MkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	return privatefs.WriteFile(path, raw)
}

// FindOnDemand is the build of a release's on-demand manager of a
// provider, as the cache's record names it: an error says which build to
// run when there is none, it is of another release of the manager, or a
// file it names is gone.
func FindOnDemand(cacheDir, kubernetes, provider string) (OnDemandBuild, error) {
	r, err := Lookup(kubernetes)
	if err != nil {
		return OnDemandBuild{}, err
	}
	var want *ProviderCCM
	for i, c := range r.OnDemandCCMs {
		if c.Provider == provider {
			want = &r.OnDemandCCMs[i]
		}
	}
	if want == nil {
		return OnDemandBuild{}, fmt.Errorf("%s has no on-demand components for %s: it has them for %s", provider, kubernetes, orNone(OnDemandVersions(provider)))
	}
	return findOnDemand(cacheDir, kubernetes, *want)
}

// findOnDemand is the cache's build of a release's on-demand manager,
// checked against the manager's row.
func findOnDemand(cacheDir, kubernetes string, want ProviderCCM) (OnDemandBuild, error) {
	provider := want.Provider
	build := fmt.Sprintf("build them with `handover images build --provider %s %s`", provider, kubernetes)
	raw, err := os.ReadFile(onDemandRecord(cacheDir, kubernetes, provider))
	if errors.Is(err, fs.ErrNotExist) {
		return OnDemandBuild{}, fmt.Errorf("%s's %s %s for %s are not in the image cache %s: %s", provider, want.Module, want.Version, kubernetes, cacheDir, build)
	}
	if err != nil {
		return OnDemandBuild{}, err
	}
	var got OnDemandBuild
	if err := json.Unmarshal(raw, &got); err != nil {
		return OnDemandBuild{}, fmt.Errorf("the record of %s's on-demand components for %s: %w: %s", provider, kubernetes, err, build)
	}
	if got.Manager.Module != want.Module || got.Manager.Version != want.Version || got.Manager.Image != want.Image {
		return OnDemandBuild{}, fmt.Errorf("the image cache holds %s %s for %s, not %s %s: %s", got.Manager.Module, got.Manager.Version, kubernetes, want.Module, want.Version, build)
	}
	files := got.Archives
	if got.CredentialProvider != "" {
		files = append(files, got.CredentialProvider)
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return OnDemandBuild{}, fmt.Errorf("%s's on-demand components for %s: %w: %s", provider, kubernetes, err, build)
		}
	}
	return got, nil
}
