// Package layering holds the import rules between handover's layers (docs/
// adr/0003): the timeline is neutral, verify judges any cluster and so
// imports no simulation, procedure or provider, the simulation knows
// nothing of how it is judged, and the clusters layer serves them all.
package layering_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/handover-sh/handover/"

// rules: packages under from (a path prefix inside the module) must not
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
	{"migrate", []string{"simulate/", "verify/", "rehearsal", "reports", "cmd/"},
		"procedures reach a cloud only through providers, so a real provider plugs in without touching them"},
	{"providers", []string{""}, "the meeting point of procedures and clouds depends on neither"},
	{"waits", []string{""}, "every package registers its waits in the one table"},
	{"selfusage", []string{"clusters/", "simulate/", "verify/", "migrate", "rehearsal", "reports", "cmd/"},
		"handover's own usage is measured the same whatever it rehearses or observes"},
}

// plumbing are the packages a rule's from may depend on whatever its
// mustNot says (exact packages): internal/boundedfile reads the
// timeline's file bounded. What they depend on in turn is still held to
// the rule.
var plumbing = map[string][]string{"timeline": {"internal/boundedfile"}}

func TestLayers(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			continue
		}
		for _, r := range rules {
			if !under(pkg, r.from) {
				continue
			}
			checked++
			for _, dep := range fields[1:] {
				d, ours := strings.CutPrefix(dep, module)
				if !ours || under(d, r.from) || slices.Contains(plumbing[r.from], d) {
					continue
				}
				for _, bad := range r.mustNot {
					if under(d, bad) {
						t.Errorf("%s depends on %s: %s", pkg, d, r.why)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package was held to a rule: the listing is not what this test expects")
	}
}

// under says whether pkg is prefix itself or below it ("" is everything;
// a prefix ending in "/" is a directory's packages only).
func under(pkg, prefix string) bool {
	switch {
	case prefix == "":
		return true
	case strings.HasSuffix(prefix, "/"):
		return strings.HasPrefix(pkg, prefix)
	}
	return pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}
