package kindcluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/privatefs"
)

// kubeconfigLimit bounds a kubeconfig handover hands to kind to edit: kind's
// own are a few KiB; a user's merged file of many clusters stays far below.
const kubeconfigLimit = 16 << 20

// viaPrivateCopy runs edit on a copy of the kubeconfig at path kept in a
// new 0700 directory beside it, then puts the result back in one rename.
// kind writes a kubeconfig (and its .lock) with os.WriteFile, which
// follows a link planted at that path; handed a path nobody else can
// reach, it cannot be steered. A link at path is refused, not read. With
// no path, kind's default ($KUBECONFIG or ~/.kube/config) is used as is.
func viaPrivateCopy(path string, edit func(path string) error) error {
	if path == "" {
		return edit("")
	}
	dir := filepath.Dir(path)
	if err := privatefs.MkdirAll(dir); err != nil {
		return fmt.Errorf("kubeconfig %s: %w", path, err)
	}
	tmp, err := os.MkdirTemp(dir, ".kubeconfig-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	work := filepath.Join(tmp, "kubeconfig")
	if err := copyIn(path, work); err != nil {
		return err
	}
	editErr := edit(work)
	raw, err := os.ReadFile(work)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return editErr // nothing to put back (kind wrote none)
	case err != nil:
		return errors.Join(editErr, err)
	}
	return errors.Join(editErr, privatefs.WriteFile(path, raw))
}

// copyIn copies an existing regular file at path to work (nothing when
// there is none).
func copyIn(path, work string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: handover does not write through links; remove it and run again", path)
	}
	raw, err := boundedfile.Read(path, kubeconfigLimit)
	if errors.Is(err, boundedfile.ErrEmpty) {
		return nil
	}
	if err != nil {
		return err
	}
	return privatefs.WriteFile(work, raw)
}
