package all_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/handover-sh/handover/clusters/nodeimage"
	_ "github.com/handover-sh/handover/providers/all"
)

// builtReleases are digests of each release, its providers' preloaded
// managers included, as the cached node images were built from it: the
// images' keys follow from it (which components, in which order), and a
// changed one rebuilds its image, half an hour and more. On-demand
// managers are no part of the image, nor of the digest. Change a row on
// purpose only.
var builtReleases = map[string]string{
	"v1.26.13": "f1274753394604e2",
	"v1.27.4":  "91b8372d076a54e6",
	"v1.28.15": "ebf9ff7293793b30",
	"v1.29.15": "baf02813688ed45c", // cloud-provider-aws v1.29.6 preloaded
	"v1.30.14": "96759e7f6030ff38",
	"v1.31.4":  "de26a8b42a710b09",
}

// Moving a release's facts, or a provider's managers, between packages
// leaves the release its image is built from as it was.
func TestNodeImageReleasesAreTheBuiltOnes(t *testing.T) {
	for _, v := range nodeimage.Known() {
		r, err := nodeimage.Lookup(v)
		if err != nil {
			t.Fatal(err)
		}
		js, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := (&nodeimage.Key{}).Add("json", string(js)).String(); got != builtReleases[v] {
			t.Errorf("the %s release digests to %s, not %s as its image was built: its node image would be rebuilt", v, got, builtReleases[v])
		}
	}
}

// The default build makes no provider's on-demand components and keeps
// them out of the node images; `images build --provider azure` builds
// azure's for the release that has them, and only azure's.
func TestOnDemandComponentsAreBuiltWhenAsked(t *testing.T) {
	plan, err := nodeimage.Plan(nodeimage.DefaultVersions, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plan {
		if len(p.OnDemand) != 0 {
			t.Errorf("the default build of %s makes %v", p.Release.Kubernetes, p.OnDemand)
		}
		for _, c := range p.Release.ProviderCCMs {
			if c.OnDemand {
				t.Errorf("the %s node image preloads on-demand %s", p.Release.Kubernetes, c.Module)
			}
		}
	}
	plan, err = nodeimage.Plan([]string{"v1.30.14", "v1.31.4"}, []string{"azure"})
	if err != nil {
		t.Fatal(err)
	}
	if got := plan[0].OnDemand; len(got) != 1 || got[0].Provider != "azure" || got[0].Module != "cloud-provider-azure-v1.30.4" {
		t.Errorf("--provider azure builds %v for v1.30.14, not cloud-provider-azure v1.30.4", got)
	}
	if got := plan[1].OnDemand; len(got) != 0 {
		t.Errorf("--provider azure builds %v for v1.31.4, which has none", got)
	}
	if _, err := nodeimage.Plan([]string{"v1.31.4"}, []string{"azure"}); err == nil || !strings.Contains(err.Error(), "it has them for v1.30.14") {
		t.Errorf("--provider azure of v1.31.4 alone: %v", err)
	}
}
