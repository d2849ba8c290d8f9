// Package lint checks a leader migration before anything in a cluster
// changes: the LeaderMigrationConfiguration each manager reads, against the
// controller names that manager version really filters on; the two sides
// against each other; the managers' flags; and the lease RBAC.
package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Severity of a finding: errors stop a run unless forced.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Finding is one problem, where it is, and what to do about it.
type Finding struct {
	Severity Severity
	Where    string // file and field path, or flag
	Problem  string
	Fix      string
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s: %s: %s", f.Severity, f.Where, f.Problem)
	if f.Fix != "" {
		s += "\n    fix: " + f.Fix
	}
	return s
}

// Findings is a lint result.
type Findings []Finding

// Errors counts the findings of severity Error.
func (fs Findings) Errors() int {
	n := 0
	for _, f := range fs {
		if f.Severity == Error {
			n++
		}
	}
	return n
}

func (fs Findings) String() string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}

// Shown is how many findings a command prints: a configuration of
// thousands of entries has as many findings, and the first fifty say what
// to fix (errors first).
const Shown = 50

// Head prints the first n findings, errors first, and says how many more
// there are.
func (fs Findings) Head(n int) string {
	if len(fs) <= n {
		return fs.String()
	}
	sorted := slices.Clone(fs)
	slices.SortStableFunc(sorted, func(a, b Finding) int {
		return cmp.Compare(severityRank[a.Severity], severityRank[b.Severity])
	})
	rest := sorted[n:]
	return sorted[:n].String() + fmt.Sprintf("… and %d more (%d error(s), %d warning(s)) not shown\n", len(rest), rest.Errors(), len(rest)-rest.Errors())
}

var severityRank = map[Severity]int{Error: 0, Warning: 1}

// Err is nil when there are no errors, else one error listing them (the
// first Shown).
func (fs Findings) Err() error {
	if fs.Errors() == 0 {
		return nil
	}
	return fmt.Errorf("leader migration lint found %d error(s):\n%s", fs.Errors(), fs.Head(Shown))
}
