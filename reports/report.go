package reports

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/selfusage"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
)

// Report is what every format renders.
type Report struct {
	Title      string
	Start, End time.Time
	Results    []checks.Result
	Events     []timeline.Event
	About      About // what was judged, and by which handover
}

// New checks a timeline.
func New(title string, evs []timeline.Event, cfg checks.Config) Report {
	from, to := checks.Span(evs)
	return Report{Title: title, Start: from, End: to, Results: checks.All(evs, cfg), Events: evs}
}

// Cost is the line saying what handover itself cost the machine, or ""
// when the timeline has no samples of it.
func (r Report) Cost() string {
	if s, ok := selfusage.Summarize(r.Events); ok {
		return s.String()
	}
	return ""
}

// Passed is true when every check passed.
func (r Report) Passed() bool { return checks.Passed(r.Results) }

// Files written by WriteAll.
const (
	JUnitFile    = "junit.xml"
	MarkdownFile = "summary.md"
	HTMLFile     = "report.html"
)

// WriteAll writes the JUnit, Markdown and HTML reports into dir. Each is
// rendered whole, then replaces its file (a link planted at the name is
// replaced, never written through).
func WriteAll(dir string, r Report) error {
	if err := privatefs.MkdirAllMode(dir, 0o755); err != nil {
		return err
	}
	for name, write := range map[string]func(io.Writer, Report) error{
		JUnitFile:    func(w io.Writer, r Report) error { return WriteJUnit(w, r) },
		MarkdownFile: func(w io.Writer, r Report) error { return WriteMarkdown(w, r) },
		HTMLFile:     func(w io.Writer, r Report) error { return WriteHTML(w, r) },
	} {
		var buf bytes.Buffer
		if err := write(&buf, r); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		if err := privatefs.WriteFileMode(filepath.Join(dir, name), buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
