package nodeaccess

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/handover-sh/handover/internal/boundedfile"
)

// ErrNoRoot says the node's root file system cannot be reached from here
// (not root, another PID namespace, an engine on another host): fall back
// to running a command in the node.
var ErrNoRoot = errors.New("node root file system not reachable from this host")

// maxFile bounds one read: node files handover reads are manifests and
// configurations.
const maxFile = 16 << 20

// ReadFile reads path inside the root file system of the container whose
// init is pid. The path is resolved inside that root (RESOLVE_IN_ROOT), so
// an absolute symlink in the node points into the node, not the host.
func ReadFile(pid int, path string) ([]byte, error) {
	f, err := Open(pid, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("reading %s: larger than %d bytes", path, maxFile)
	}
	return data, nil
}

// Open opens path for reading inside the root file system of the container
// whose init is pid, resolved inside that root as ReadFile does: a file a
// poller follows (a log) is opened this way, never by its /proc/PID/root
// path, through which a symlink in the node would name a host file. Only a
// regular file is opened: a FIFO planted in the node would block the open
// (and whoever waits for the poller), a device would never end.
func Open(pid int, path string) (*os.File, error) {
	root, err := openRoot(pid)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return openIn(int(root.Fd()), path)
}

func openIn(rootFD int, path string) (*os.File, error) {
	// O_NONBLOCK: a FIFO opens at once instead of waiting for a writer,
	// and Regular then refuses it; a regular file's reads do not heed it.
	fd, err := resolveIn(rootFD, path, unix.O_RDONLY|unix.O_NONBLOCK)
	if errors.Is(err, ErrNoRoot) {
		return nil, err
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	if err := boundedfile.Regular(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// resolveIn opens path under rootFD with flags, every component resolved
// inside that root. Where openat2 is missing or refused (an old kernel, a
// seccomp filter) it says ErrNoRoot; other errors are openat2's own.
func resolveIn(rootFD int, path string, flags uint64) (int, error) {
	fd, err := unix.Openat2(rootFD, path, &unix.OpenHow{Flags: flags | unix.O_CLOEXEC, Resolve: unix.RESOLVE_IN_ROOT})
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		return -1, fmt.Errorf("%w: openat2: %v", ErrNoRoot, err)
	}
	return fd, err
}

// sharesHostRoot lets the tests stand this process's own root in for a
// node's.
var sharesHostRoot = false

// openRoot opens the root of the container whose init is pid. A root that
// is the host's own is refused: a PID remembered for a container that has
// since restarted may name a host process now, and a write meant for the
// node must not land on the host.
func openRoot(pid int) (*os.File, error) {
	root, err := os.Open(Root(pid, ""))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoRoot, err)
	}
	if !sharesHostRoot && isHostRoot(root) {
		root.Close()
		return nil, fmt.Errorf("%w: pid %d runs in the host's root, not a node's", ErrNoRoot, pid)
	}
	return root, nil
}

// hostRoot is this process's root, read once: every node read and write
// compares against it.
var hostRoot = sync.OnceValues(func() (os.FileInfo, error) { return os.Stat("/") })

// isHostRoot says whether f is this process's root (same device and inode).
func isHostRoot(f *os.File) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := hostRoot()
	return err == nil && os.SameFile(a, b)
}

// Root is the host path of path inside the root of the container whose
// init is pid. Only for naming and for checking that the root is still
// there: opening a file by it would resolve the node's symlinks against
// the host's root (Open does not).
func Root(pid int, path string) string {
	return "/proc/" + strconv.Itoa(pid) + "/root" + path
}

// Exists says whether path exists inside the root of the container whose
// init is pid (resolved inside that root, as ReadFile does).
func Exists(pid int, path string) (bool, error) {
	root, err := openRoot(pid)
	if err != nil {
		return false, err
	}
	defer root.Close()
	fd, err := resolveIn(int(root.Fd()), path, unix.O_PATH)
	switch {
	case err == nil:
		unix.Close(fd)
		return true, nil
	case errors.Is(err, unix.ENOENT):
		return false, nil
	case errors.Is(err, ErrNoRoot):
		return false, err
	}
	return false, &os.PathError{Op: "stat", Path: path, Err: err}
}
