package layering_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The layout table of docs/contributing.md names every package of every
// module in the tree, and nothing that is not there.
func TestLayoutTableNamesEveryPackage(t *testing.T) {
	raw, err := os.ReadFile("../../docs/contributing.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := layoutRows(string(raw))
	if len(rows) == 0 {
		t.Fatal("no layout table under ## Layout in docs/contributing.md")
	}
	g, err := readGraph("../..")
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range g {
		if !anyRow(rows, pkg) {
			t.Errorf("package %s is not in the layout table of docs/contributing.md", pkg)
		}
	}
	for _, r := range rows {
		dir := strings.TrimSuffix(r, "/*")
		if fi, err := os.Stat(filepath.Join("../..", dir)); err != nil || !fi.IsDir() {
			t.Errorf("the layout table names %s, which is not a directory of the tree", r)
		}
	}
}

// layoutRows are the paths the first column of the ```text block under
// "## Layout" names.
func layoutRows(doc string) []string {
	_, after, ok := strings.Cut(doc, "## Layout")
	if !ok {
		return nil
	}
	_, block, ok := strings.Cut(after, "```text\n")
	if !ok {
		return nil
	}
	block, _, _ = strings.Cut(block, "```")
	var rows []string
	for _, line := range strings.Split(block, "\n") {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(line, " ") {
			rows = append(rows, f[0])
		}
	}
	return rows
}

// anyRow: a row is the package itself, or, ending in "/*", a directory
// whose packages it names whole.
func anyRow(rows []string, pkg string) bool {
	for _, r := range rows {
		if r == pkg {
			return true
		}
		if dir, ok := strings.CutSuffix(r, "*"); ok && strings.HasPrefix(pkg, dir) {
			return true
		}
	}
	return false
}
