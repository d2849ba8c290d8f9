package reports

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// requireTool finds a program the test needs; CI sets
// HANDOVER_REQUIRE_TOOLS=1 so a missing one fails instead of skipping.
func requireTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("HANDOVER_REQUIRE_TOOLS") == "1" {
		t.Fatalf("%s is required (Debian package %s)", name, pkg)
	}
	t.Skipf("SKIPPING: %s not installed (Debian package %s)", name, pkg)
	return ""
}

// validateJUnitSchema checks the XML against testdata/junit.xsd.
func validateJUnitSchema(t *testing.T, doc []byte) {
	t.Helper()
	xmllint := requireTool(t, "xmllint", "libxml2-utils")
	f := filepath.Join(t.TempDir(), "junit.xml")
	if err := os.WriteFile(f, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit.xsd"), f).CombinedOutput()
	if err != nil {
		t.Fatalf("JUnit output does not validate: %v\n%s", err, out)
	}
}
