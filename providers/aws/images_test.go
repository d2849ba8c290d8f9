package aws

import (
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/modsource"
)

// Every node image this package gives a manager carries it once the
// package is imported.
func TestNodeImagesCarryTheManagers(t *testing.T) {
	for version, c := range nodeImages {
		r, err := nodeimage.Lookup(version)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(r.ProviderCCMs, c) {
			t.Errorf("the %s node image carries %v, not cloud-provider-aws %s", version, r.ProviderCCMs, c.Version)
		}
	}
}

// TestManagersAreBuiltAsTheirDockerfiles: each manager a node image
// preloads keeps its binary where its own image does, runs it as the
// entrypoint, is built with the release as its version, and is named as
// its chart names it.
func TestManagersAreBuiltAsTheirDockerfiles(t *testing.T) {
	for _, c := range nodeImages {
		dir := modsource.Dir(t, "k8s.io/cloud-provider-aws@"+c.Version)
		docker, ok := modsource.Text(t, dir, "Dockerfile")
		if !ok {
			t.Fatalf("cloud-provider-aws %s has no Dockerfile", c.Version)
		}
		name := path.Base(c.Binary)
		for _, want := range []string{"COPY --from=builder /build/" + name + " " + c.Binary, `ENTRYPOINT [ "` + c.Binary + `" ]`,
			"-X k8s.io/component-base/version.gitVersion=${VERSION}", "cmd/" + name + "/main.go"} {
			if !strings.Contains(docker, want) {
				t.Errorf("cloud-provider-aws %s: its Dockerfile has no %q", c.Version, want)
			}
		}
		values, _ := modsource.Text(t, dir, "charts/"+name+"/values.yaml")
		repo, _, _ := strings.Cut(c.Image, ":"+c.Version)
		if !strings.Contains(values, "repository: "+repo) {
			t.Errorf("cloud-provider-aws %s: its chart names no image %s", c.Version, repo)
		}
		if !strings.HasSuffix(c.Package, "/cmd/"+name) {
			t.Errorf("cloud-provider-aws %s builds %s, not its cmd/%s", c.Version, c.Package, name)
		}
	}
}
