// Package privatefs writes handover's files so that a planted symlink or a
// loose directory on a shared host cannot redirect or expose them: handover
// runs as root, and a path it writes to may have been prepared by anyone.
// Directories are reached without following links and must be nobody
// else's; files are replaced through a temporary file and a rename (which
// replaces a link instead of following it) or opened with O_NOFOLLOW.
package privatefs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// WriteFile replaces path with data, readable by root only.
func WriteFile(path string, data []byte) error { return WriteFileMode(path, data, 0o600) }

// WriteFileMode replaces path with data through a new temporary file in the
// same directory: a symlink at path is replaced, never followed, and a
// reader never sees half a file. The directory is reached as MkdirAll
// reaches one, and the file is made relative to it.
func WriteFileMode(path string, data []byte, perm os.FileMode) error {
	dir, base := filepath.Split(path)
	dfd, err := openDir(dir)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer unix.Close(dfd)
	tmp, f, err := createTemp(dfd, dir, base)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dfd, tmp, dfd, base)
	}
	if err != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// createTemp makes a new file ".base.RANDOM" in the directory open at dfd.
func createTemp(dfd int, dir, base string) (string, *os.File, error) {
	for range 10 {
		var r [6]byte
		if _, err := rand.Read(r[:]); err != nil {
			return "", nil, err
		}
		name := "." + base + "." + hex.EncodeToString(r[:])
		fd, err := unix.Openat(dfd, name, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		return name, os.NewFile(uintptr(fd), filepath.Join(dir, name)), nil
	}
	return "", nil, fmt.Errorf("no free temporary name for %s in %s", base, dir)
}

// OpenAppend opens path for appending, creating it 0600; it refuses a
// symlink.
func OpenAppend(path string) (*os.File, error) {
	return openIn(path, unix.O_CREAT|unix.O_WRONLY|unix.O_APPEND, 0o600)
}

// Create makes a new file at path (0644: an artifact for people to read),
// refusing one that exists, symlinks included.
func Create(path string) (*os.File, error) {
	return openIn(path, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY, 0o644)
}

// Rewrite opens path for writing from empty, creating it 0644 (an
// artifact for people to read); it refuses a symlink.
func Rewrite(path string) (*os.File, error) {
	return openIn(path, unix.O_CREAT|unix.O_WRONLY|unix.O_TRUNC, 0o644)
}

// openIn opens path's last component relative to its directory, reached
// as MkdirAll reaches one, never following a link at either.
func openIn(path string, flags int, perm uint32) (*os.File, error) {
	dir, base := filepath.Split(path)
	dfd, err := openDir(dir)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	// O_NONBLOCK: a FIFO planted at path fails at once (ENXIO) instead
	// of waiting for a reader; it has no effect on a regular file.
	fd, err := unix.Openat(dfd, base, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, perm)
	if err != nil {
		return nil, refusedLink(path, &os.PathError{Op: "open", Path: path, Err: err})
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, fmt.Errorf("%s is not a regular file: remove it and run again", path)
	}
	return os.NewFile(uintptr(fd), path), nil
}

// refusedLink says what O_NOFOLLOW's ELOOP means.
func refusedLink(path string, err error) error {
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link: handover does not write through links; remove it and run again", path)
	}
	return err
}

// Move moves src to dst, copying when they are on different file systems
// (where a rename fails with EXDEV, and what was kept would be lost).
// Regular files and directories are copied; links are not.
func Move(src, dst string) error {
	err := os.Rename(src, dst)
	if err == nil || !errors.Is(err, syscall.EXDEV) {
		return err
	}
	if err := copyTree(src, dst); err != nil {
		return fmt.Errorf("copying %s to %s: %w", src, dst, err)
	}
	return os.RemoveAll(src)
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return copyFile(path, target)
		}
		return nil
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}
