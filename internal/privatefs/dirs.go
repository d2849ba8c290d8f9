package privatefs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// MkdirAll makes dir and its missing parents 0700 (see MkdirAllMode).
func MkdirAll(dir string) error { return MkdirAllMode(dir, 0o700) }

// MkdirAllMode makes dir and its missing parents with perm, walking the
// path one component at a time from the root without following a link.
// Every component must be a real directory owned by root or by the user
// running handover (or, under sudo, the user who ran sudo); one writable by
// others is allowed only above dir and only with the sticky bit (as /tmp
// is), where nobody else can rename what is ours. dir itself must not be
// writable by others. A directory that exists keeps its mode: handover
// never re-modes what it did not make (a 1777 /tmp made 0700 breaks the
// host).
func MkdirAllMode(dir string, perm os.FileMode) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	fd, err := walk(abs, perm, true)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// openDir opens the existing directory dir as MkdirAllMode checks it, for
// files to be made in it relative to the descriptor.
func openDir(dir string) (int, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return -1, err
	}
	return walk(abs, 0, false)
}

// walk opens abs as an O_PATH descriptor, component by component, making
// what is missing when asked to.
func walk(abs string, perm os.FileMode, create bool) (int, error) {
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	names := strings.Split(strings.Trim(abs, "/"), "/")
	at := "/"
	for i, name := range names {
		if name == "" {
			continue
		}
		at = filepath.Join(at, name)
		next, err := step(fd, at, name, perm, create)
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
		if err := trusted(fd, at, i == len(names)-1); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	return fd, nil
}

// step opens name under the directory parent, making it if it is missing;
// a link is refused, never followed.
func step(parent int, at, name string, perm os.FileMode, create bool) (int, error) {
	const flags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat(parent, name, flags, 0)
	if errors.Is(err, unix.ENOENT) && create {
		if err := unix.Mkdirat(parent, name, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, fmt.Errorf("making %s: %w", at, err)
		}
		fd, err = unix.Openat(parent, name, flags, 0)
	}
	if err == nil {
		return fd, nil
	}
	var st unix.Stat_t
	if unix.Fstatat(parent, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			target, _ := os.Readlink(at)
			return -1, fmt.Errorf("%s is a symbolic link (to %s): handover writes through no link; give a path of real directories", at, target)
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			return -1, fmt.Errorf("%s is not a directory: remove it or give another path", at)
		}
	}
	return -1, fmt.Errorf("opening %s: %w", at, err)
}

// trusted checks the directory open at fd: whose it is and who else may
// write to it.
func trusted(fd int, at string, last bool) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("checking %s: %w", at, err)
	}
	if !trustedOwner(st.Uid) {
		return fmt.Errorf("%s belongs to uid %d, not to root or to the user running handover (uid %d): whoever owns it could redirect handover's writes; give a directory of your own", at, st.Uid, os.Geteuid())
	}
	othersWrite := st.Mode&0o022 != 0
	sticky := st.Mode&unix.S_ISVTX != 0
	switch {
	case othersWrite && last:
		return fmt.Errorf("%s is writable by others (mode %04o): handover writes only into directories nobody else can write to; give a directory of its own (for example %s)", at, st.Mode&0o7777, filepath.Join(at, "handover"))
	case othersWrite && !sticky:
		return fmt.Errorf("%s is writable by others without the sticky bit (mode %04o): anyone could replace what handover makes below it; give a path under a private directory", at, st.Mode&0o7777)
	}
	return nil
}

// trustedOwner: root, the user running handover and, when that is root
// under sudo, the user who ran sudo (a CI runner's checkout or restored
// cache, used by `sudo handover`): each of them could act as root anyway.
func trustedOwner(uid uint32) bool {
	if uid == 0 || int(uid) == os.Geteuid() {
		return true
	}
	if os.Geteuid() != 0 {
		return false
	}
	sudo, err := strconv.ParseUint(os.Getenv("SUDO_UID"), 10, 32)
	return err == nil && uint32(sudo) == uid
}
