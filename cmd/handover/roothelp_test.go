package main

import (
	"strings"
	"testing"
)

// The root help's "Start with" opens with the command handover exists for.
func TestRootHelpStartsWithRehearse(t *testing.T) {
	out, err := runCLIOut(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(out, "Start with:\n")
	if !ok {
		t.Fatalf("the root help has no \"Start with:\":\n%s", out)
	}
	first, _, _ := strings.Cut(after, "\n")
	if !strings.HasPrefix(strings.TrimSpace(first), "handover rehearse ") {
		t.Errorf("the root help starts with %q, want handover rehearse", first)
	}
}
