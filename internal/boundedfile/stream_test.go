package boundedfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOpenStreamsARegularFileFromAnOffset(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		path string
		from int64
		want int
	}{{write(t, dir, "ten", 10), 3, 7}, {write(t, dir, "empty", 0), 0, 0}} {
		s, err := Open(tc.path, 10)
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if _, err := s.Seek(tc.from, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(s)
		s.Close()
		if err != nil || len(b) != tc.want {
			t.Fatalf("%s: %q, %v", tc.path, b, err)
		}
	}
}

// A FIFO, a device, a directory and a file over the limit are refused
// by Open, at once.
func TestOpenRefusesAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		is   error
		says string
	}{
		{fifo, ErrNotRegular, "is a named pipe (FIFO), not a regular file"},
		{"/dev/zero", ErrNotRegular, "/dev/zero is a character device"},
		{dir, ErrNotRegular, "is a directory"},
		{write(t, dir, "big", 11), ErrTooLarge, "11 bytes, more than the 10 bytes handover reads"},
	} {
		done := make(chan error, 1)
		go func() {
			s, err := Open(tc.path, 10)
			if err == nil {
				s.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%s: err = %v, want %v saying %q", tc.path, err, tc.is, tc.says)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still opening after 5s", tc.path)
		}
	}
}

// A file that grows past the limit after it was opened is cut off there.
func TestStreamStopsAtTheLimit(t *testing.T) {
	path := write(t, t.TempDir(), "growing", 10)
	s, err := Open(path, 10)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := os.WriteFile(path, []byte(strings.Repeat("b", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(s)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "grew past the 10 bytes") || len(b) > 11 {
		t.Fatalf("read %d bytes, err %v", len(b), err)
	}
}
