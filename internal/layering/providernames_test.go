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
// exact), and a file not listed may have none.
var providerBranches = map[string]int{
	"simulate/cloudcluster/aws.go":                1,
	"simulate/cloudcluster/awsccm.go":             1,
	"simulate/cloudcluster/credentialprovider.go": 1,
	"simulate/cloudcluster/create.go":             4,
	"simulate/cloudcluster/daemon.go":             2,
	"simulate/cloudcluster/nodehooks.go":          2,
	"cmd/handover/cluster.go":                     2,
}

// No new code compares a provider's name to choose what to do.
func TestNoNewBranchesOnProviderNames(t *testing.T) {
	root := filepath.Join("..", "..")
	got := map[string]int{}
	err := walkGoFiles(root, func(path, rel string) error {
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
