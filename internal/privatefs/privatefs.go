// Package privatefs writes handover's files so that a planted symlink or a
// loose directory on a shared host cannot redirect or expose them: handover
// runs as root, and a path it writes to may have been prepared by anyone.
// Directories are 0700 and never symlinks; files are replaced through a
// temporary file and a rename (which replaces a link instead of following
// it) or opened with O_NOFOLLOW.
package privatefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// MkdirAll makes dir and its missing parents 0700 and checks that dir is
// a directory of its own, not a link to one elsewhere; an existing dir is
// made 0700.
func MkdirAll(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (a symbolic link?): remove it and run again", dir)
	}
	if fi.Mode().Perm() != 0o700 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}

// WriteFile replaces path with data, readable by root only.
func WriteFile(path string, data []byte) error { return WriteFileMode(path, data, 0o600) }

// WriteFileMode replaces path with data through a new temporary file in the
// same directory: a symlink at path is replaced, never followed, and a
// reader never sees half a file.
func WriteFileMode(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// OpenAppend opens path for appending, creating it 0600; it refuses a
// symlink.
func OpenAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, refusedLink(path, err)
	}
	return f, nil
}

// Create makes a new file at path (0644: an artifact for people to read),
// refusing one that exists, symlinks included.
func Create(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, refusedLink(path, err)
	}
	return f, nil
}

// Rewrite opens path for writing from empty, creating it 0644 (an
// artifact for people to read); it refuses a symlink.
func Rewrite(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, refusedLink(path, err)
	}
	return f, nil
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
