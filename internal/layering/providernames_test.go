package layering_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// providerBranch matches code that picks a behaviour by comparing a
// provider's name: with a provider package's Name constant, a seam-era
// constant, or the name written out. A provider's behaviour belongs to
// its own package, reached through what it registers (providers.As), not
// to a branch elsewhere.
var providerBranch = regexp.MustCompile(`(==|!=)\s*((aws|azure|simulated)\.Name|(\w+\.)?(AWS|Azure|ProviderName|Simulated))\b|(==|!=)\s*"(aws|azure|simulated)"|case\s+(((aws|azure|simulated)\.Name|(\w+\.)?(AWS|Azure|Simulated))\b|"(aws|azure|simulated)")`)

// seamParts are the directories under providers/ that belong to the seam,
// not to one provider: they know no provider's name either.
var seamParts = map[string]bool{"all": true, "profiles": true}

// No code outside a provider's own package compares a provider's name to
// choose what to do.
func TestNoBranchesOnProviderNames(t *testing.T) {
	got, err := providerBranches(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for file, n := range got {
		t.Errorf("%s compares a provider's name %d times: give the provider's package the behaviour (a capability of providers) instead", file, n)
	}
}

// A branch on a provider's name is found, in each of its forms, outside a
// provider's package and not inside one.
func TestBranchesOnProviderNamesAreFound(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("package x\n\n"+text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("rehearsal/a.go", "func f(p string) bool { return p == aws.Name }")
	write("migrate/b.go", "func g(p string) { switch p {\ncase \"azure\":\n} }")
	write("cmd/c.go", "var _ = name != providers.Simulated")
	write("providers/profiles/d.go", "var _ = p == \"aws\"")
	write("providers/aws/e.go", "var _ = c.Provider == Name || p == aws.Name")
	write("rehearsal/f.go", "// p == aws.Name, in a comment")
	got, err := providerBranches(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"rehearsal/a.go": 1, "migrate/b.go": 1, "cmd/c.go": 1, "providers/profiles/d.go": 1}
	if len(got) != len(want) {
		t.Errorf("found %v, want %v", got, want)
	}
	for f, n := range want {
		if got[f] != n {
			t.Errorf("%s: %d branches found, want %d", f, got[f], n)
		}
	}
}

// providerBranches counts, by file, the lines that compare a provider's
// name outside a provider's package (comments aside).
func providerBranches(root string) (map[string]int, error) {
	got := map[string]int{}
	err := walkGoFiles(root, func(path, rel string) error {
		if inProviderPackage(rel) {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if c := strings.TrimSpace(line); !strings.HasPrefix(c, "//") && providerBranch.MatchString(c) {
				got[rel]++
			}
		}
		return nil
	})
	return got, err
}

// inProviderPackage: rel is a file of a provider's own package
// (providers/NAME/, and its parts below it), not of the seam.
func inProviderPackage(rel string) bool {
	sub, ok := strings.CutPrefix(filepath.ToSlash(rel), "providers/")
	if !ok {
		return false
	}
	dir, _, nested := strings.Cut(sub, "/")
	return nested && !seamParts[dir]
}
