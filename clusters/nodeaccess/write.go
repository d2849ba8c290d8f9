package nodeaccess

import (
	"errors"
	"fmt"
	"os"
	pathpkg "path"
	"strconv"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// WriteFile replaces path inside the root file system of the container
// whose init is pid with data, in one rename: a kubelet or balancer
// watching the directory never reads half a file. Missing directories are
// made (0755). Every component is resolved inside that root, so a symlink
// in the node cannot point the write at the host.
func WriteFile(pid int, path string, data []byte, perm os.FileMode) error {
	root, err := openRoot(pid)
	if err != nil {
		return err
	}
	defer root.Close()
	return writeIn(int(root.Fd()), path, data, perm)
}

// tmpSeq tells apart the temporary files of writes running at once.
var tmpSeq atomic.Uint64

// writeIn writes path under the directory rootFD as if it were "/".
func writeIn(rootFD int, path string, data []byte, perm os.FileMode) error {
	dir, base := pathpkg.Split(pathpkg.Clean("/" + path))
	if base == "" || base == "/" {
		return fmt.Errorf("writing %q: not a file path", path)
	}
	dfd, err := openDir(rootFD, dir)
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer unix.Close(dfd)
	tmp := ".handover-" + base + "." + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(tmpSeq.Add(1), 10)
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return &os.PathError{Op: "create", Path: pathpkg.Join(dir, tmp), Err: err}
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Chmod(perm.Perm()) // not narrowed by the umask
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = unix.Renameat(dfd, tmp, dfd, base)
	}
	if werr != nil {
		_ = unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}

// openDir opens dir under rootFD (resolved inside it), making the
// components that are missing.
func openDir(rootFD int, dir string) (int, error) {
	dir = pathpkg.Clean("/" + dir)
	fd, err := resolveIn(rootFD, dir, unix.O_PATH|unix.O_DIRECTORY)
	switch {
	case err == nil:
		return fd, nil
	case errors.Is(err, ErrNoRoot):
		return -1, err
	case !errors.Is(err, unix.ENOENT) || dir == "/":
		return -1, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	parent, name := pathpkg.Split(dir)
	pfd, err := openDir(rootFD, parent)
	if err != nil {
		return -1, err
	}
	defer unix.Close(pfd)
	if err := unix.Mkdirat(pfd, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, &os.PathError{Op: "mkdir", Path: dir, Err: err}
	}
	// Made here or by a writer beside this one: a symlink in its place is
	// refused rather than followed.
	fd, err = unix.Openat(pfd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return fd, nil
}
