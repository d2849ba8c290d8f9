package layering_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// providerBranch matches code that picks a behaviour by comparing a
// provider's name: a provider's behaviour belongs to its own package,
// reached through what it registers, not to a branch elsewhere.
var providerBranch = regexp.MustCompile(`(==|!=)\s*(\w+\.)?(AWS|Azure|ProviderName|Simulated)\b|(==|!=)\s*"(aws|azure|simulated)"|case\s+((\w+\.)?(AWS|Azure|Simulated)|"aws"|"azure"|"simulated")\b`)

// providerBranches are the branches on a provider's name the tree has
// today, by file, until they move behind the provider seam: a count may
// only fall (the test then asks for the row to be lowered, so it stays
// exact), and a file not listed may have none. A provider's own package
// (providers/NAME/) is where its name belongs: its files are not counted.
var providerBranches = map[string]int{
	"rehearsal/providercode.go":  1,
	"rehearsal/matrix/matrix.go": 1,
	"rehearsal/config.go":        1,
	"migrate/lint/provider.go":   1,
	"cmd/handover/lint.go":       1,
}

// No new code compares a provider's name to choose what to do.
func TestNoNewBranchesOnProviderNames(t *testing.T) {
	root := filepath.Join("..", "..")
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
	if err != nil {
		t.Fatal(err)
	}
	for file, n := range got {
		if n > providerBranches[file] {
			t.Errorf("%s compares a provider's name %d times (at most %d): give the provider's package the behaviour instead", file, n, providerBranches[file])
		}
	}
	for file, n := range providerBranches {
		if got[file] < n {
			t.Errorf("%s now compares a provider's name %d times: lower its row in providerBranches to %d", file, got[file], got[file])
		}
	}
}

// inProviderPackage: rel is a file of a package under providers/ (a
// provider's own, or one of its parts), not of the seam itself.
func inProviderPackage(rel string) bool {
	sub, ok := strings.CutPrefix(filepath.ToSlash(rel), "providers/")
	return ok && strings.Contains(sub, "/")
}
