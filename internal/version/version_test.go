package version

import (
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestStringFromWhatGoStamped(t *testing.T) {
	build := func(v string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.24.4", Main: debug.Module{Path: "github.com/handover-sh/handover", Version: v}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	const rev = "8d15286a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"a tag", build("v0.3.0", "vcs.revision", rev, "vcs.modified", "false"), "v0.3.0"},
		{"a commit", build("v0.0.0-20260101120000-8d15286a0b1c"), "v0.0.0-20260101120000-8d15286a0b1c"},
		{"a changed tree, stamped by Go", build("v0.0.0-20260101120000-8d15286a0b1c+dirty", "vcs.modified", "true"), "v0.0.0-20260101120000-8d15286a0b1c+dirty"},
		{"a changed tree, not stamped", build("v0.3.0", "vcs.modified", "true"), "v0.3.0+dirty"},
		{"go run", build("(devel)"), "devel"},
		{"devel with its commit", build("(devel)", "vcs.revision", rev, "vcs.modified", "true"), "devel+8d15286a0b1c2d-dirty"},
		{"no build information", nil, "devel"},
	} {
		if got := FromBuildInfo(c.bi).String(); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// `handover version` prints what `kind version` does: name, version, Go
// version, platform.
func TestDisplayAsKindPrintsIt(t *testing.T) {
	got := FromBuildInfo(&debug.BuildInfo{GoVersion: "go1.24.4", Main: debug.Module{Version: "v0.3.0"}}).Display()
	if want := "handover v0.3.0 go1.24.4 " + runtime.GOOS + "/" + runtime.GOARCH; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	if f := strings.Fields(Get().Display()); len(f) != 4 || f[0] != "handover" || !strings.HasPrefix(f[2], "go") {
		t.Fatalf("this binary: %q", Get().Display())
	}
}

// make build passes the commit where Go stamps none; Go's own stamp wins.
func TestTheCommitMakeBuildPasses(t *testing.T) {
	const rev = "8d15286a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"
	devel := FromBuildInfo(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}})
	if got := devel.orRevision(rev + "-dirty").String(); got != "devel+8d15286a0b1c2d-dirty" {
		t.Errorf("from make build: %q", got)
	}
	stamped := FromBuildInfo(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}})
	if got := stamped.orRevision(rev).String(); got != "devel+abc" {
		t.Errorf("Go's stamp and make build's: %q", got)
	}
	raw, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "-X github.com/handover-sh/handover/internal/version.revision=") {
		t.Error("make build no longer passes the commit to internal/version.revision")
	}
}
