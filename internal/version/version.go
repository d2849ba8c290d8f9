// Package version says which handover a binary is, as `handover version`
// prints it and the reports name the handover that judged them. It reads
// what the go command stamps into every binary it builds (runtime/debug:
// the main module's version, vcs.revision, vcs.modified), so a plain
// `go build` or `go install` is enough: no -ldflags. Where the go command
// stamps no commit, the one `make build` passes stands in.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Info is one binary's version.
type Info struct {
	// Module is the main module's version as the go command stamped it: a
	// tag (v1.2.3), a pseudo-version of a commit (with +dirty when the work
	// tree had changes), or "(devel)" when it stamped none.
	Module   string
	Revision string // vcs.revision: the commit built; "" when unknown
	Modified bool   // vcs.modified: the work tree had uncommitted changes
	Go       string // the Go version it was built with
	Platform string // GOOS/GOARCH
}

// revision is the commit `make build` passes (-ldflags -X), ending in
// -dirty when the work tree had changes. The go command stamps none under
// GOFLAGS=-buildvcs=false, nor in a git worktree (its .git is a file, not
// the directory the go command looks for).
var revision string

// Get is this binary's version.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return FromBuildInfo(bi).orRevision(revision)
}

// orRevision is i with the commit given (rev, perhaps ending -dirty)
// where Go stamped none.
func (i Info) orRevision(rev string) Info {
	if i.Revision == "" && rev != "" {
		i.Revision, i.Modified = strings.CutSuffix(rev, "-dirty")
	}
	return i
}

// FromBuildInfo reads a binary's build information (nil: none).
func FromBuildInfo(bi *debug.BuildInfo) Info {
	i := Info{Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi == nil {
		return i
	}
	i.Module = bi.Main.Version
	if bi.GoVersion != "" {
		i.Go = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			i.Revision = s.Value
		case "vcs.modified":
			i.Modified = s.Value == "true"
		}
	}
	return i
}

// revisionLen shortens a commit as Kubernetes and kind do (14 characters).
const revisionLen = 14

// String is the version alone: a tagged or pseudo-version as stamped,
// else "devel" with the commit built (+ its first 14 characters, -dirty
// when modified) where it is known. Go stamps a pseudo-version only when
// it builds the main module inside its repository with the repository's
// tool at hand (no -buildvcs=false); `go run` and tests get "(devel)".
func (i Info) String() string {
	v := i.Module
	if v != "" && v != "(devel)" {
		if i.Modified && !strings.Contains(v, "dirty") {
			v += "+dirty" // as Go 1.24 marks a pseudo-version; older ones did not
		}
		return v
	}
	v = "devel"
	if i.Revision != "" {
		v += "+" + i.Revision[:min(len(i.Revision), revisionLen)]
		if i.Modified {
			v += "-dirty"
		}
	}
	return v
}

// Display is the line `handover version` prints, as `kind version` does:
// the name, the version, the Go version and the platform.
func (i Info) Display() string {
	return "handover " + i.String() + " " + i.Go + " " + i.Platform
}
