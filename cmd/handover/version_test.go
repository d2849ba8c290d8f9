package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/handover-sh/handover/internal/version"
)

// `handover version` prints what `kind version` does; --version, cobra's,
// the version alone.
func TestVersionAsKindPrintsIt(t *testing.T) {
	out, err := runCLIOut(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(out)
	if len(f) != 4 || f[0] != "handover" || f[1] != version.Get().String() || !strings.HasPrefix(f[2], "go") || f[3] != runtime.GOOS+"/"+runtime.GOARCH {
		t.Fatalf("handover version: %q", out)
	}
	if out, err = runCLIOut(t, "--version"); err != nil || out != "handover version "+version.Get().String()+"\n" {
		t.Fatalf("handover --version: %q %v", out, err)
	}
}

// The reports of `handover report` name the handover that judged them.
func TestReportsNameTheirJudge(t *testing.T) {
	dir := t.TempDir()
	tl := writeObservation(t, dir, "cp-1", 0)
	out := filepath.Join(dir, "reports")
	_, _ = runCLIOut(t, "report", tl, "--out", out) // red: a minute of samples proves little
	junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if want := `<property name="handover-version" value="` + version.Get().String() + `"></property>`; !strings.Contains(string(junit), want) {
		t.Errorf("junit.xml lacks %s", want)
	}
	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summary), "Judged by handover "+version.Get().String()+".") {
		t.Errorf("summary.md does not name its judge:\n%s", summary)
	}
}
