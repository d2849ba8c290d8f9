package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

// However many findings, a command prints the first Shown, errors first,
// and how many more there are.
func TestHeadCapsFindings(t *testing.T) {
	var fs Findings
	for i := range 1000 {
		fs = append(fs, Finding{Warning, fmt.Sprintf("w%d", i), "x", ""})
	}
	fs = append(fs, Finding{Error, "last", "an error at the end", ""})
	out := fs.Head(Shown)
	if n := strings.Count(out, "\n"); n != Shown+1 {
		t.Errorf("%d lines, want %d:\n%s", n, Shown+1, out)
	}
	if !strings.HasPrefix(out, "error: last: an error at the end\n") || !strings.HasSuffix(out, "… and 951 more (0 error(s), 951 warning(s)) not shown\n") {
		t.Errorf("head:\n%s", out)
	}
	if few := fs[:3]; few.Head(Shown) != few.String() {
		t.Errorf("fewer than the cap are printed in full")
	}
	if err := fs.Err(); err == nil || strings.Count(err.Error(), "\n") > Shown+2 {
		t.Errorf("Err lists them all: %d lines", strings.Count(err.Error(), "\n"))
	}
}

// A configuration's leaderName is the name of a Lease the managers take.
func TestLeaderNameMustBeALeaseName(t *testing.T) {
	c := lmconfig.New(lmconfig.Wildcard, "service-lb-controller")
	c.LeaderName = "'; touch x; '"
	fs := Lint(Side{Component: lmconfig.CCM, Version: "v1.31.4", LeaderMigration: true, ConfigPath: "ccm.yaml", Config: c})
	if fs.Errors() == 0 || !strings.Contains(fs.String(), `ccm.yaml: leaderName: "'; touch x; '" is not a Lease name`) {
		t.Errorf("findings:\n%s", fs)
	}
}
