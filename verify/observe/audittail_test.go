package observe

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A line that never ends is not held whole: past maxAuditLine it is
// skipped to its end, counted and named, and the lines after it are read.
func TestAuditTailCapsAPartialLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var warned []string
	tl := &auditTail{log: AuditLog{Instance: "cp1", Open: func(context.Context) (*os.File, error) { return os.Open(path) }},
		warn: func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }}
	defer tl.close()
	now := time.Unix(1000, 0)
	poll := func() string {
		now = now.Add(time.Second)
		return string(bytes.Join(tl.poll(context.Background(), now), []byte{'|'}))
	}
	if _, err := f.WriteString("first\n"); err != nil {
		t.Fatal(err)
	}
	if got := poll(); got != "first" {
		t.Fatalf("first line: %q", got)
	}
	chunk := bytes.Repeat([]byte{'x'}, 3<<20)
	for range 8 { // 24 MiB without a newline, over several polls
		if _, err := f.Write(chunk); err != nil {
			t.Fatal(err)
		}
		if got := poll(); got != "" {
			t.Fatalf("a line before its end: %d bytes", len(got))
		}
		if len(tl.partial) > maxAuditLine {
			t.Fatalf("holding %d bytes of one line, more than %d", len(tl.partial), maxAuditLine)
		}
	}
	if _, err := f.WriteString("tail of the long one\nnext\n"); err != nil {
		t.Fatal(err)
	}
	if got := poll(); got != "next" {
		t.Fatalf("after the skipped line: %q", got)
	}
	if tl.skipped != 1 || len(warned) != 1 || !strings.Contains(warned[0], "skipped a line longer than 8 MiB (1 so far)") {
		t.Fatalf("skipped %d, warned %q", tl.skipped, warned)
	}
	// A complete line over the limit, read in one go, is skipped too.
	if _, err := f.Write(append(bytes.Repeat([]byte{'y'}, maxAuditLine+1), "\nafter\n"...)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 3 {
		if l := poll(); l != "" {
			got = append(got, l)
		}
	}
	if strings.Join(got, "|") != "after" || tl.skipped != 2 {
		t.Fatalf("after a long complete line: %q, skipped %d", got, tl.skipped)
	}
}

// A FIFO where an audit log should be (--audit-log FIFO, or one planted in
// a node) is refused at once and named once; the follower keeps polling
// and stops when asked, rather than blocking in the open for a writer.
func TestAuditFollowerSkipsAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "audit.log")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	reach, err := Foreign(ForeignOptions{AuditLogs: []string{fifo}})
	if err != nil {
		t.Fatal(err)
	}
	// A reach whose open does not block on a FIFO (opened for writing
	// too) is held to a regular file by the follower itself.
	held := AuditLog{Instance: "held", Open: func(context.Context) (*os.File, error) {
		return os.OpenFile(fifo, os.O_RDWR|syscall.O_NONBLOCK, 0)
	}}
	var mu sync.Mutex
	var warned []string
	warn := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		warned = append(warned, fmt.Sprintf(format, args...))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, l := range append(reach.AuditLogs(), held) {
			tl := &auditTail{log: l, warn: warn}
			for i := range 3 {
				if lines := tl.poll(context.Background(), time.Unix(int64(1000+10*i), 0)); len(lines) > 0 {
					t.Errorf("%s: lines from a FIFO: %q", l.Instance, lines)
				}
			}
			tl.close()
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the follower is still opening the FIFO after 5s")
	}
	if len(warned) != 2 || !strings.Contains(warned[0], "is a named pipe (FIFO), not a regular file") {
		t.Fatalf("warned %q, want each FIFO named once", warned)
	}
}
