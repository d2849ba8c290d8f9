package lint

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/modsource"
)

// sourceReleases are the module versions each minor's facts are read from:
// the patch the node images build (clusters/nodeimage/versions.go) where
// there is one, otherwise the newest patch whose modules the proxy serves.
var sourceReleases = map[string]string{"1.26": "0.26.13", "1.27": "0.27.4", "1.28": "0.28.15", "1.29": "0.29.15", "1.30": "0.30.14", "1.31": "0.31.4", "1.32": "0.32.6"}

// TestEveryMinorHasItsSource: no manager facts without the source that
// TestManagerTablesMatchSource re-reads them from.
func TestEveryMinorHasItsSource(t *testing.T) {
	for key, m := range managers {
		if _, ok := sourceReleases[m.Minor]; !ok {
			t.Errorf("%s: no source release to check its facts against", key)
		}
	}
}

// moduleDir downloads (or finds in the module cache) a module's source.
func moduleDir(t *testing.T, mod string) string { return modsource.Dir(t, mod) }

// readIf reads a file that older versions lack.
func readIf(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestManagerTablesMatchSource reads the managers' own source: the canonical
// names, the aliases, the built-in default configuration, and that the
// leader-migration filter compares the configured name with the canonical
// name unchanged.
func TestManagerTablesMatchSource(t *testing.T) {
	for minor, v := range sourceReleases {
		t.Run(minor, func(t *testing.T) {
			cp := moduleDir(t, "k8s.io/cloud-provider@v"+v)
			cm := moduleDir(t, "k8s.io/controller-manager@v"+v)
			kube := moduleDir(t, "k8s.io/kubernetes@v1"+strings.TrimPrefix(v, "0"))
			// Canonical names are constants in names packages (1.28 on);
			// before, the short names were the keys controllers were
			// registered under.
			names := readIf(t, filepath.Join(cp, "names", "controller_names.go")) +
				readIf(t, filepath.Join(kube, "cmd", "kube-controller-manager", "names", "controller_names.go"))
			kcmApp := read(t, filepath.Join(kube, "cmd", "kube-controller-manager", "app", "controllermanager.go"))
			ccmApp := read(t, filepath.Join(cp, "app", "controllermanager.go"))
			kcm, _ := LookupManager("kube-controller-manager", minor+".0")
			ccm, _ := LookupManager("cloud-controller-manager", minor+".0")
			for _, n := range kcm.Controllers {
				if !strings.Contains(names, `= "`+n+`"`) && !strings.Contains(kcmApp, `register("`+n+`", `) {
					t.Errorf("%s is not a kube-controller-manager controller name in the %s source", n, minor)
				}
			}
			// The simulated cloud's manager registers node IPAM itself: by
			// a names constant (1.28 on) or, before, in the minor's main.
			ownMain := readIf(t, filepath.Join("..", "..", "clusters", "nodeimage", "modules", "kubernetes-v"+minor, "cloud-controller-manager", "main.go"))
			for _, n := range ccm.Controllers {
				if !strings.Contains(names, `= "`+n+`"`) && !regexp.MustCompile(`\n\t"`+n+`":\s+\{`).MatchString(ccmApp) &&
					!strings.Contains(ownMain, `ccmcontrollers.Setup("`+n+`")`) {
					t.Errorf("%s is not a cloud-controller-manager controller name in the %s source", n, minor)
				}
			}
			if len(kcm.Aliases) == 0 && (strings.Contains(kcmApp, "ControllerAliases") || strings.Contains(kcmApp, ServiceLB)) {
				t.Errorf("kube-controller-manager %s has aliases or canonical names the table lacks", minor)
			}
			core := read(t, filepath.Join(kube, "cmd", "kube-controller-manager", "app", "core.go"))
			for alias := range kcm.Aliases {
				// 1.29 on: in the controller descriptors; 1.28: in
				// names.KCMControllerAliases.
				inCore := regexp.MustCompile(`aliases:\s+\[\]string\{"` + alias + `"\}`).MatchString(core)
				inNames := regexp.MustCompile(`"` + alias + `":\s+\w+`).MatchString(names)
				if !inCore && !inNames {
					t.Errorf("kube-controller-manager %s has no alias %q", minor, alias)
				}
			}
			own := read(t, filepath.Join("..", "..", "simulate", "cloudprovider", "ccmmain", "ccmmain.go"))
			for alias, name := range ccm.Aliases {
				if !regexp.MustCompile(`"`+alias+`"\]?\s*[:=]\s+\w+`).MatchString(names+own) || name == "" {
					t.Errorf("cloud-controller-manager %s has no alias %q", minor, alias)
				}
			}
			def := read(t, filepath.Join(cm, "pkg", "leadermigration", "config", "default.go"))
			for _, n := range kcm.Default {
				if !strings.Contains(def, `Name:      "`+n+`"`) {
					t.Errorf("default configuration of %s does not name %s", minor, n)
				}
			}
			migrator := read(t, filepath.Join(cm, "pkg", "leadermigration", "migrator.go"))
			if !strings.Contains(migrator, "migratedControllers[leader.Name]") || !strings.Contains(migrator, "migratedControllers[controllerName]") {
				t.Errorf("leader-migration filter of %s no longer compares names verbatim; re-read migrator.go", minor)
			}
			// Each manager asks the filter with the key it starts a
			// controller under (the names above), and nothing else: an
			// entry under another name is never looked up (compared).
			if !strings.Contains(kcmApp, "if filterFunc(name) == expected {") || !strings.Contains(ccmApp, "if filterFunc(name) == expected {") {
				t.Errorf("the managers of %s no longer filter their controllers by the names they start them under; re-read app/controllermanager.go", minor)
			}
			// Every entry needs a component, compared or not.
			if cfg := read(t, filepath.Join(cm, "pkg", "leadermigration", "config", "config.go")); !strings.Contains(cfg, `"component must be set"`) {
				t.Errorf("controller-manager %s no longer refuses an entry without a component; re-read ValidateLeaderMigrationConfiguration", minor)
			}
		})
	}
}
