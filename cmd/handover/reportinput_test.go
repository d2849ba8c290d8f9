package main

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handover-sh/handover/internal/boundedfile"
)

// A timeline that is no regular file is refused at once by report and
// report merge: a FIFO would block the open, a device never end.
func TestReportRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "timeline.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	good := writeTemp(t, "other.jsonl", `{"time":"2026-01-01T00:00:00Z","source":"observer","kind":"run.start"}`+"\n")
	for _, args := range [][]string{
		{"report", fifo, "--out", t.TempDir()},
		{"report", "/dev/zero", "--out", t.TempDir()},
		{"report", "merge", good, fifo, "--out", t.TempDir()},
	} {
		done := make(chan error, 1)
		go func() { done <- runCLI(t, args...) }()
		select {
		case err := <-done:
			if !errors.Is(err, boundedfile.ErrNotRegular) || !strings.Contains(err.Error(), "timeline: ") {
				t.Errorf("%v: err = %v", args, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%v: still reading after 5s", args)
		}
	}
}
