package boundedfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Open and Check take a regular file (or a link to one) and refuse at once
// what is not, a FIFO included: its open would wait for a writer.
func TestOpenAndCheckTakeOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	ok := write(t, dir, "audit.log", 0) // empty is fine: a log grows
	for _, p := range []string{fifo, "/dev/zero", dir} {
		done := make(chan [2]error, 1)
		go func() {
			f, err := OpenGrowing(p)
			if f != nil {
				f.Close()
			}
			done <- [2]error{err, Check(p)}
		}()
		select {
		case errs := <-done:
			for _, err := range errs {
				if !errors.Is(err, ErrNotRegular) {
					t.Errorf("%s: %v, want %v", p, err, ErrNotRegular)
				}
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still opening after 5s", p)
		}
	}
	f, err := OpenGrowing(ok)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := Check(ok); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenGrowing(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}
