package azure

import (
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/modsource"
)

const module = "sigs.k8s.io/cloud-provider-azure"

// Every release this package gives a manager has it on demand once the
// package is imported: built when asked, preloaded into no node image.
func TestNodeImagesHaveTheManagersOnDemand(t *testing.T) {
	for version, c := range nodeImages {
		r, err := nodeimage.Lookup(version)
		if err != nil {
			t.Fatal(err)
		}
		if !c.OnDemand || !slices.Contains(r.OnDemandCCMs, c) || slices.ContainsFunc(r.ProviderCCMs, func(p nodeimage.ProviderCCM) bool { return p.Provider == Name }) {
			t.Errorf("the %s release: preloaded %v, on demand %v; want cloud-provider-azure %s on demand only", version, r.ProviderCCMs, r.OnDemandCCMs, c.Version)
		}
	}
}

// TestManagersAreBuiltAsTheirDockerfiles: each row keeps its binaries
// where the release's own images do, runs them as the entrypoints, as the
// users they name, built from the packages its Makefile builds, with the
// link flags its hack/pkg-config.sh gives, and names the images as its
// chart does.
func TestManagersAreBuiltAsTheirDockerfiles(t *testing.T) {
	for _, c := range nodeImages {
		dir := modsource.Dir(t, module+"@"+c.Version)
		text := func(file string) string {
			s, ok := modsource.Text(t, dir, file)
			if !ok {
				t.Fatalf("cloud-provider-azure %s has no %s", c.Version, file)
			}
			return s
		}
		n := c.NodeManager
		if n == nil {
			t.Fatalf("cloud-provider-azure %s has no node manager", c.Version)
		}
		ccm, cnm := text("Dockerfile"), text("cloud-node-manager.Dockerfile")
		for file, want := range map[string][]string{
			ccm: {"/bin/azure-cloud-controller-manager " + c.Binary + "\n", `ENTRYPOINT [ "` + c.Binary + `" ]`},
			cnm: {"/bin/azure-cloud-node-manager " + n.Binary + "\n", `ENTRYPOINT [ "` + n.Binary + `" ]`, "\nUSER " + n.User + "\n"},
		} {
			for _, w := range want {
				if !strings.Contains(file, w) {
					t.Errorf("cloud-provider-azure %s: a Dockerfile has no %q", c.Version, w)
				}
			}
		}
		if strings.Contains(ccm, "\nUSER ") {
			t.Errorf("cloud-provider-azure %s: the manager's Dockerfile names a user; the row runs it as root", c.Version)
		}
		makefile := text("Makefile")
		for bin, pkg := range map[string]string{"azure-cloud-controller-manager": c.Package, "azure-cloud-node-manager": n.Package, "azure-acr-credential-provider": c.CredentialProvider} {
			if !strings.Contains(makefile, "-o $(BIN_DIR)/"+bin+" $(shell cat $(PKG_CONFIG)) ./"+strings.TrimPrefix(pkg, module+"/")+"\n") {
				t.Errorf("cloud-provider-azure %s: its Makefile does not build %s from %s with pkg-config's flags", c.Version, bin, pkg)
			}
		}
		values := text("helm/cloud-provider-azure/values.yaml")
		for _, image := range []string{c.Image, n.Image} {
			repo, rest, _ := strings.Cut(image, "/oss/kubernetes/")
			name, tag, _ := strings.Cut(rest, ":")
			if repo != "mcr.microsoft.com" || tag != c.Version || !strings.Contains(values, `imageName: "`+name+`"`) ||
				!strings.Contains(values, `imageRepository: "mcr.microsoft.com/oss/kubernetes"`) {
				t.Errorf("cloud-provider-azure %s: its chart names no image %s", c.Version, image)
			}
		}
		plugins := text("examples/out-of-tree/credential-provider-config.yaml")
		if !strings.Contains(plugins, "- name: "+path.Base(c.CredentialProvider)+"\n") {
			t.Errorf("cloud-provider-azure %s: its credential provider configuration names no %s", c.Version, path.Base(c.CredentialProvider))
		}
		checkLinkFlags(t, c, text("hack/pkg-config.sh"), text("pkg/version/base.go"), originHash(t, c.Version))
	}
}

// checkLinkFlags holds a row's flags to pkg-config.sh: -s -w, and each
// variable the row sets, set there in both version packages, declared in
// the provider's, with the release and its tag's commit.
func checkLinkFlags(t *testing.T, c nodeimage.ProviderCCM, script, base, commit string) {
	t.Helper()
	if !strings.Contains(script, `LDFLAGS="-s -w"`) || !strings.HasPrefix(c.LDFlags, "-s -w ") {
		t.Errorf("cloud-provider-azure %s: flags %q, script's -s -w", c.Version, c.LDFlags)
	}
	for pkg, v := range map[string]string{"VERSION_PKG": module + "/pkg/version", "CLIENT_GO_VERSION_PKG": "k8s.io/client-go/pkg/version"} {
		if !strings.Contains(script, "\n"+pkg+"="+v+"\n") {
			t.Errorf("cloud-provider-azure %s: pkg-config.sh has no %s=%s", c.Version, pkg, v)
		}
		for variable, value := range map[string]string{"gitVersion": c.Version, "gitCommit": commit, "buildDate": "1970-01-01T00:00:00Z"} {
			if !strings.Contains(script, "-X ${"+pkg+"}."+variable+"=") || !strings.Contains(c.LDFlags, "-X "+v+"."+variable+"="+value+" ") && !strings.HasSuffix(c.LDFlags, "-X "+v+"."+variable+"="+value) {
				t.Errorf("cloud-provider-azure %s: %s.%s is not set to %s as pkg-config.sh sets it: %q", c.Version, v, variable, value, c.LDFlags)
			}
			if !strings.Contains(base, "\t"+variable+" ") {
				t.Errorf("cloud-provider-azure %s: pkg/version declares no %s", c.Version, variable)
			}
		}
	}
}

// originHash is the commit the module proxy says a release was made from.
func originHash(t *testing.T, version string) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "cache", "download", module, "@v", version+".info"))
	if err != nil {
		t.Fatal(err)
	}
	var info struct{ Origin struct{ Hash string } }
	if err := json.Unmarshal(raw, &info); err != nil || info.Origin.Hash == "" {
		t.Fatalf("no origin commit for cloud-provider-azure %s (%v): %s", version, err, raw)
	}
	return info.Origin.Hash
}

// Each row's build module pins its release and names the packages it
// builds; its go.sum holds every module they link, so the image build's
// download is all the network it needs.
func TestBuildModulesPinTheRelease(t *testing.T) {
	for _, c := range nodeImages {
		dir := filepath.Join("..", "..", "clusters", "nodeimage", "modules", c.Module)
		raw, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		pinned := slices.ContainsFunc(strings.Split(string(raw), "\n"), func(line string) bool {
			f := strings.Fields(line)
			return len(f) >= 2 && f[0] == module && f[1] == c.Version
		})
		if !pinned {
			t.Errorf("%s/go.mod does not require %s %s", c.Module, module, c.Version)
		}
		pkgs := []string{c.Package, c.NodeManager.Package, c.CredentialProvider}
		for _, pkg := range pkgs {
			if !strings.Contains(string(raw), "\t"+pkg+"\n") {
				t.Errorf("%s/go.mod names no tool %s", c.Module, pkg)
			}
		}
		if testing.Short() {
			continue
		}
		cmd := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: go list -deps: %v\n%s", c.Module, err, out)
		}
	}
}
