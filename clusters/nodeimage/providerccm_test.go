package nodeimage

import (
	"path"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/modsource"
)

// TestProviderCCMsAreBuiltAsTheirDockerfiles: each provider manager a
// release preloads keeps its binary where its own image does, runs it as
// the entrypoint, is built with the release as its version, and is named
// as its chart names it.
func TestProviderCCMsAreBuiltAsTheirDockerfiles(t *testing.T) {
	seen := 0
	for _, r := range Releases {
		for _, p := range r.ProviderCCMs {
			seen++
			dir := modsource.Dir(t, "k8s.io/cloud-provider-"+p.Provider+"@"+p.Version)
			docker, ok := modsource.Text(t, dir, "Dockerfile")
			if !ok {
				t.Fatalf("%s %s has no Dockerfile", p.Provider, p.Version)
			}
			name := path.Base(p.Binary)
			for _, want := range []string{"COPY --from=builder /build/" + name + " " + p.Binary, `ENTRYPOINT [ "` + p.Binary + `" ]`,
				"-X k8s.io/component-base/version.gitVersion=${VERSION}", "cmd/" + name + "/main.go"} {
				if !strings.Contains(docker, want) {
					t.Errorf("%s %s: its Dockerfile has no %q", p.Provider, p.Version, want)
				}
			}
			values, _ := modsource.Text(t, dir, "charts/"+name+"/values.yaml")
			repo, _, _ := strings.Cut(p.Image, ":"+p.Version)
			if !strings.Contains(values, "repository: "+repo) {
				t.Errorf("%s %s: its chart names no image %s", p.Provider, p.Version, repo)
			}
			if !strings.HasSuffix(p.Package, "/cmd/"+name) {
				t.Errorf("%s builds %s, not its cmd/%s", p.Provider, p.Package, name)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no release preloads a provider's manager: nothing was held")
	}
}
