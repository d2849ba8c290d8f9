// Package boundedfile reads the files a user names (rehearsal files,
// leader-migration configurations, manifests, topologies) so that a wrong
// path fails at once with a clear error: only a regular file, never empty,
// never more than a named limit. A device such as /dev/zero would otherwise
// be read until memory runs out, and a FIFO would block the open beyond the
// reach of Ctrl-C.
package boundedfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Limits for the files handover reads.
const (
	// ConfigLimit bounds a configuration file (a rehearsal file, a
	// LeaderMigrationConfiguration, a topology): 1 MiB, the most a
	// ConfigMap or Secret holds, which is how a leader-migration
	// configuration reaches the managers of a Rancher cluster; hand-written
	// YAML of these kinds is a few KiB.
	ConfigLimit = 1 << 20
	// ManifestLimit bounds a manifest of several objects (`helm template`
	// output): each object must fit etcd's default request limit of
	// 1.5 MiB, and a cloud-controller-manager chart renders to tens of KiB;
	// 4 MiB leaves room for a few large objects.
	ManifestLimit = 4 << 20
)

// Errors Read wraps, for errors.Is.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrTooLarge   = errors.New("too large")
	ErrEmpty      = errors.New("empty")
)

// Read returns the content of the regular file at path (a symbolic link to
// one is fine), refusing anything else, an empty file, and one of more than
// limit bytes before reading it.
func Read(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, fi, limit); err != nil {
		return nil, err
	}
	return readOpened(path, limit)
}

// readOpened opens path and checks it again: it may have changed since it
// was looked at.
func readOpened(path string, limit int64) ([]byte, error) {
	f, opened, err := open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := check(path, opened, limit); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	return b, check(path, sized{opened, int64(len(b))}, limit) // it may have changed while read
}

// open opens path without waiting on it and checks what was opened as a
// stream: it may have changed since it was looked at.
func open(path string, limit int64) (*os.File, fs.FileInfo, error) {
	// O_NONBLOCK: should path become a FIFO after the Stat, the open
	// returns at once instead of waiting for a writer; Fstat then refuses it.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	opened, err := f.Stat()
	if err == nil {
		err = checkStream(path, opened, limit)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, opened, nil
}

// check refuses what is not a regular file of 1 to limit bytes.
func check(path string, fi fs.FileInfo, limit int64) error {
	if err := checkStream(path, fi, limit); err != nil {
		return err
	}
	if fi.Size() == 0 {
		return fmt.Errorf("%s is %w", path, ErrEmpty)
	}
	return nil
}

// checkStream refuses what is not a regular file of at most limit bytes.
func checkStream(path string, fi fs.FileInfo, limit int64) error {
	if err := regular(path, fi); err != nil {
		return err
	}
	if fi.Size() > limit {
		return fmt.Errorf("%s is %w: %d bytes, more than the %s handover reads", path, ErrTooLarge, fi.Size(), size(limit))
	}
	return nil
}

// sized is a file's information with the size actually read.
type sized struct {
	fs.FileInfo
	n int64
}

func (s sized) Size() int64 { return s.n }

// kind names a mode that is not a regular file's.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "an irregular file"
}

// size prints a limit in MiB or KiB.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
