// Package layering holds the import rules between handover's layers (docs/
// adr/0003): the timeline is neutral, verify judges any cluster and so
// imports no simulation, procedure or provider, the simulation knows
// nothing of how it is judged, and the clusters layer serves them all.
package layering_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// rules: packages under from (a directory path in the tree) must not
// depend, directly or through others, on any package under the prefixes
// of mustNot. Test files are not held to them.
var rules = []struct {
	from    string
	mustNot []string
	why     string
}{
	{"timeline", []string{""}, "the timeline is the neutral contract between writers and readers"},
	{"verify/", []string{"simulate/", "migrate", "rehearsal", "reports", "cmd/"},
		"verify judges a real cluster as well as a rehearsal: what it reads comes in through its Options"},
	{"simulate/", []string{"verify/", "migrate", "rehearsal", "reports", "cmd/"},
		"the simulation does not know how it is judged or which procedure runs on it"},
	{"clusters/", []string{"simulate/", "verify/", "migrate", "rehearsal", "reports", "cmd/"},
		"the clusters layer serves every other one"},
	{"internal/", []string{"simulate/", "verify/", "migrate", "rehearsal", "reports", "cmd/"},
		"internal helpers are plumbing"},
	{"migrate/lmconfig", []string{"simulate/", "verify/", "rehearsal", "reports", "cmd/", "migrate/lint"},
		"the configuration's reader is pure"},
	{"migrate/lint", []string{"simulate/", "verify/", "rehearsal", "reports", "cmd/"},
		"the lint reads configurations and flags, never a cluster"},
	{"reports", []string{"simulate/", "rehearsal", "cmd/"}, "reports render results, whatever produced them"},
	{"migrate", []string{"simulate/", "verify/", "rehearsal", "reports", "cmd/", "providers/"},
		"procedures reach a cloud only through providers, so a real provider plugs in without touching them"},
	{"providers=", []string{""}, "the seam between handover and the clouds depends on neither side of it"},
	{"providers/profiles", []string{""}, "the providers' facts are data read from their source"},
	{"providers/", []string{"verify/", "migrate", "rehearsal", "reports", "cmd/"},
		"a provider package wires its cloud into the clusters and the simulation; the procedures reach it only through the seam"},
	{"waits", []string{""}, "every package registers its waits in the one table"},
	{"selfusage", []string{"clusters/", "simulate/", "verify/", "migrate", "rehearsal", "reports", "cmd/"},
		"handover's own usage is measured the same whatever it rehearses or observes"},
}

// allowed are the dependencies a rule's packages may have whatever its
// mustNot says, each for a reason (exact packages, or a directory's with a
// trailing "/"); what they depend on in turn is still held to the rule.
var allowed = []struct{ from, dep, why string }{
	{"timeline", "internal/boundedfile", "the timeline's file is read bounded"},
	{"migrate", "providers/profiles", "the lint and the procedures judge a provider's manager by its facts"},
	{"clusters/nodeimage/modules/", "simulate/cloudprovider/",
		"the node images' kubelets and managers are built with the simulated provider compiled in: its code is the simulated cloud's, these modules only pin versions and register it"},
}

// TestLayers holds every package of every module in the tree to the rules.
func TestLayers(t *testing.T) {
	g, err := readGraph("../..")
	if err != nil {
		t.Fatal(err)
	}
	bad, checked := violations(g)
	for _, v := range bad {
		t.Error(v)
	}
	if checked == 0 {
		t.Fatal("no package was held to a rule: the tree is not what this test expects")
	}
	for _, nested := range []string{"simulate/cloudprovider/provider", "clusters/nodeimage/modules/kubernetes-v1.30/kubelet", "simulate/cloudserver/amazon/drive/ccm"} {
		if _, ok := g[nested]; !ok {
			t.Errorf("%s, a package of a nested module, was not read", nested)
		}
	}
}

// A violation in a nested module is found, through a package an exception
// allows as well as directly.
func TestLayersSeeNestedModules(t *testing.T) {
	root := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, path), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module github.com/handover-sh/handover\n")
	write("verify/checks/c.go", "package checks\n")
	write("simulate/cloudprovider/go.mod", "module github.com/handover-sh/handover/simulate/cloudprovider\n")
	write("simulate/cloudprovider/provider/p.go", "package provider\nimport _ \"github.com/handover-sh/handover/verify/checks\"\n")
	write("clusters/nodeimage/modules/k/go.mod", "module handover.local/build/k\n")
	write("clusters/nodeimage/modules/k/kubelet/main.go",
		"package main\nimport _ \"github.com/handover-sh/handover/simulate/cloudprovider/provider\"\nfunc main() {}\n")
	g, err := readGraph(root)
	if err != nil {
		t.Fatal(err)
	}
	bad, _ := violations(g)
	for _, want := range []string{
		"clusters/nodeimage/modules/k/kubelet depends on verify/checks",
		"simulate/cloudprovider/provider depends on verify/checks",
	} {
		if !slices.ContainsFunc(bad, func(v string) bool { return strings.HasPrefix(v, want+":") }) {
			t.Errorf("not found: %q in %q", want, bad)
		}
	}
	for _, v := range bad {
		if strings.Contains(v, "depends on simulate/cloudprovider/provider") {
			t.Errorf("the allowed dependency was reported: %s", v)
		}
	}
}

// violations applies the rules to every package of g, and says how many
// packages a rule held.
func violations(g graph) (bad []string, checked int) {
	pkgs := make([]string, 0, len(g))
	for p := range g {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, pkg := range pkgs {
		deps := g.deps(pkg)
		for _, r := range rules {
			if !under(pkg, r.from) {
				continue
			}
			checked++
			for _, d := range deps {
				if under(d, r.from) || isAllowed(pkg, d) {
					continue
				}
				for _, no := range r.mustNot {
					if under(d, no) {
						bad = append(bad, fmt.Sprintf("%s depends on %s: %s", pkg, d, r.why))
						break
					}
				}
			}
		}
	}
	return bad, checked
}

func isAllowed(pkg, dep string) bool {
	for _, a := range allowed {
		if under(pkg, a.from) && under(dep, a.dep) {
			return true
		}
	}
	return false
}

// under says whether pkg is prefix itself or below it ("" is everything;
// a prefix ending in "/" is a directory's packages only, one ending in "="
// that package alone).
func under(pkg, prefix string) bool {
	switch {
	case prefix == "":
		return true
	case strings.HasSuffix(prefix, "="):
		return pkg == strings.TrimSuffix(prefix, "=")
	case strings.HasSuffix(prefix, "/"):
		return strings.HasPrefix(pkg, prefix)
	}
	return pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}
