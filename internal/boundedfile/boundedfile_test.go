package boundedfile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func write(t *testing.T, dir, name string, size int) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Repeat("a", size)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadsARegularFileAndALinkToOne(t *testing.T) {
	dir := t.TempDir()
	p := write(t, dir, "ok.yaml", 10)
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{p, link} {
		b, err := Read(path, 10)
		if err != nil || string(b) != "aaaaaaaaaa" {
			t.Errorf("%s: %q, %v", path, b, err)
		}
	}
}

// Each is refused at once, saying what the path is.
func TestRefusesWhatIsNotASmallRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(dir, "none"), dangling); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path string
		is         error
		says       string
	}{
		{"too large", write(t, dir, "big.yaml", 11), ErrTooLarge, "11 bytes, more than the 10 bytes handover reads"},
		{"empty", write(t, dir, "empty.yaml", 0), ErrEmpty, "empty.yaml is empty"},
		{"FIFO", fifo, ErrNotRegular, "is a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "/dev/zero", ErrNotRegular, "/dev/zero is a character device, not a regular file"},
		{"directory", dir, ErrNotRegular, "is a directory, not a regular file"},
		{"socket", sock, ErrNotRegular, "is a socket, not a regular file"},
		{"missing", filepath.Join(dir, "none"), os.ErrNotExist, "no such file"},
		{"dangling link", dangling, os.ErrNotExist, "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { _, err := Read(tc.path, 10); done <- err }()
			select {
			case err := <-done:
				if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.says) {
					t.Fatalf("err = %v, want %v saying %q", err, tc.is, tc.says)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("still reading after 5s")
			}
		})
	}
}

// A path that turns into a FIFO between the look and the open does not
// block the open.
func TestOpenRechecks(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := readOpened(fifo, 10); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the open blocked")
	}
}

func TestLimitIsInclusive(t *testing.T) {
	p := write(t, t.TempDir(), "exact", ConfigLimit)
	if b, err := Read(p, ConfigLimit); err != nil || len(b) != ConfigLimit {
		t.Fatalf("%d bytes, %v", len(b), err)
	}
	if _, err := Read(p, ConfigLimit-1); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "1048576 bytes") {
		t.Fatalf("one byte over: %v", err)
	}
	if got := size(ConfigLimit); got != "1 MiB" {
		t.Errorf("size(ConfigLimit) = %q", got)
	}
}
