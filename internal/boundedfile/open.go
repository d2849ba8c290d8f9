package boundedfile

import (
	"fmt"
	"io/fs"
	"math"
	"os"
)

// OpenGrowing opens the regular file at path (a symbolic link to one is
// fine) for a reader that bounds each read itself, such as a follower of
// a growing log: no size is checked. Anything else is refused at once;
// the open never waits for a FIFO's writer.
func OpenGrowing(path string) (*os.File, error) {
	f, _, err := open(path, math.MaxInt64)
	return f, err
}

// Regular refuses an opened file that is not a regular file, naming what
// it is. A file opened from elsewhere (inside a container's root) is held
// to what OpenGrowing holds a path to; open it with O_NONBLOCK first, so
// that a FIFO does not block the open.
func Regular(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return regular(f.Name(), fi)
}

// Check refuses a path that is not a regular file (a symbolic link to one
// is fine) without opening it, for an early error before a later open; it
// reads nothing and so checks no size.
func Check(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return regular(path, fi)
}

// regular refuses what is not a regular file, naming what it is.
func regular(name string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, %w: give a file", name, kind(fi.Mode()), ErrNotRegular)
	}
	return nil
}
