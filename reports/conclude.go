package reports

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/handover-sh/handover/timeline"
)

// ErrChecksFailed is returned (wrapped) by Conclude when a check failed.
var ErrChecksFailed = errors.New("checks failed")

// Conclude reads a finished timeline, checks it, writes every report into
// dir (saying what they are of: about) and tells w the verdict: each failed
// check, then the count. The error wraps ErrChecksFailed when a check
// failed.
func Conclude(timelinePath, dir string, about About, w io.Writer) (*Report, error) {
	return ConcludeFrom(timelinePath, 0, dir, about, w)
}

// ConcludeFrom is Conclude on what the timeline holds from byte offset on:
// one observation appended to a file that holds others is judged alone.
func ConcludeFrom(timelinePath string, offset int64, dir string, about About, w io.Writer) (*Report, error) {
	evs, err := timeline.ReadFileFrom(timelinePath, offset)
	if err != nil {
		return nil, err
	}
	cfg, err := ConfigFor(evs)
	if err != nil {
		return nil, err
	}
	r := New(TitleFor(evs), evs, cfg)
	r.About = about
	if err := WriteAll(dir, r); err != nil {
		return &r, err
	}
	failed := 0
	for _, res := range r.Results {
		if !res.Passed {
			failed++
			fmt.Fprintf(w, "FAIL %s %s: %s\n", res.Check, res.Subject, res.Violations[0].Message)
		}
	}
	if cost := r.Cost(); cost != "" {
		fmt.Fprintln(w, cost)
	}
	fmt.Fprintf(w, "%d checks, %d failed; reports in %s (%s, %s, %s)\n", len(r.Results), failed, dir, JUnitFile, MarkdownFile, HTMLFile)
	if failed > 0 {
		return &r, fmt.Errorf("%d of %d %w (see %s)", failed, len(r.Results), ErrChecksFailed, filepath.Join(dir, MarkdownFile))
	}
	return &r, nil
}
