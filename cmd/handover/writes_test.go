package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report merge into a 1777 directory (as --out /tmp) is refused, and the
// directory keeps its mode: made 0700 it would break the host.
func TestReportMergeLeavesASharedDirectoryAsItWas(t *testing.T) {
	dir := t.TempDir()
	a, b := writeObservation(t, dir, "cp-1", 0), writeObservation(t, dir, "cp-2", 0)
	shared := filepath.Join(dir, "tmp")
	if err := os.Mkdir(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(shared, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLIOut(t, "report", "merge", a, b, "--out", shared); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Fatalf("merging into a 1777 directory: %v, want a refusal", err)
	}
	if fi, _ := os.Stat(shared); fi.Mode()&(os.ModePerm|os.ModeSticky) != 0o777|os.ModeSticky {
		t.Fatalf("the shared directory became %v", fi.Mode())
	}
}

// An output directory given as a link is refused, and nothing is written
// where it points.
func TestReportOutThroughALinkIsRefused(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	a, b := writeObservation(t, dir, "cp-1", 0), writeObservation(t, dir, "cp-2", 0)
	link := filepath.Join(dir, "out")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"report", a, "--out", link}, {"report", "merge", a, b, "--out", link}} {
		if _, err := runCLIOut(t, args...); err == nil || !strings.Contains(err.Error(), "symbolic link") {
			t.Fatalf("%v: %v, want a refusal naming the link", args, err)
		}
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Fatalf("written through the link: %v", entries)
	}
}

// HANDOVER_CPUPROFILE naming a planted link: the profile does not go
// through it.
func TestCPUProfileNotWrittenThroughALink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The profile is named for the command (os.Args[1]); the test binary's
	// own arguments may hold a path (-test.testlogfile=…).
	args := os.Args
	defer func() { os.Args = args }()
	os.Args = []string{"handover", "rehearse"}
	base := filepath.Join(dir, "cpu")
	path := base + ".rehearse"
	if err := os.Symlink(victim, path); err != nil {
		t.Fatal(err)
	}
	t.Setenv(profileEnv, base)
	startProfile()()
	if raw, _ := os.ReadFile(victim); string(raw) != "precious" {
		t.Fatalf("the profile was written through the link: %q", raw)
	}
}
