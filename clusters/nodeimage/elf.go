package nodeimage

import (
	"debug/elf"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// libDirs are where a Debian amd64 root keeps shared libraries.
var libDirs = []string{"/usr/lib/x86_64-linux-gnu", "/usr/lib", "/usr/lib64", "/lib/x86_64-linux-gnu", "/lib64"}

// rootfsCopier copies programs with every shared library they load from a
// Debian root file system into image files, following symlinks inside it.
type rootfsCopier struct {
	root  string
	files map[string]file
}

func newRootfsCopier(root string) *rootfsCopier {
	return &rootfsCopier{root: root, files: map[string]file{}}
}

// Add copies p (a path inside the root) and its dependency closure.
func (c *rootfsCopier) Add(p string) error {
	if _, done := c.files[p]; done {
		return nil
	}
	host := filepath.Join(c.root, p)
	info, err := os.Lstat(host)
	if err != nil {
		return fmt.Errorf("%s in root file system: %w", p, err)
	}
	if info.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(host)
		if err != nil {
			return err
		}
		c.files[p] = file{Path: p, Link: target}
		if !path.IsAbs(target) {
			target = path.Join(path.Dir(p), target)
		}
		return c.Add(c.canonical(target))
	}
	c.files[p] = file{Path: p, Mode: int64(info.Mode().Perm()), Src: host}
	return c.addDeps(p, host)
}

// canonical resolves symlinked parent directories (merged /usr) in the root.
func (c *rootfsCopier) canonical(p string) string {
	dir, base := path.Split(p)
	dir = path.Clean(dir)
	if real, err := filepath.EvalSymlinks(filepath.Join(c.root, dir)); err == nil {
		if rel, err := filepath.Rel(c.root, real); err == nil && !strings.HasPrefix(rel, "..") {
			return path.Join("/", rel, base)
		}
	}
	return p
}

func (c *rootfsCopier) addDeps(p, host string) error {
	ef, err := elf.Open(host)
	if err != nil {
		return nil // not ELF (a script or data): nothing more to follow
	}
	defer ef.Close()
	needed, _ := ef.ImportedLibraries()
	for _, prog := range ef.Progs {
		if prog.Type == elf.PT_INTERP {
			buf := make([]byte, prog.Filesz)
			if _, err := prog.ReadAt(buf, 0); err == nil {
				if err := c.Add(c.canonical(strings.TrimRight(string(buf), "\x00"))); err != nil {
					return err
				}
			}
		}
	}
	for _, lib := range needed {
		found, err := c.findLib(lib)
		if err != nil {
			return fmt.Errorf("%s needs %s: %w", p, lib, err)
		}
		if err := c.Add(found); err != nil {
			return err
		}
	}
	return nil
}

func (c *rootfsCopier) findLib(lib string) (string, error) {
	for _, d := range libDirs {
		p := path.Join(d, lib)
		if _, err := os.Lstat(filepath.Join(c.root, p)); err == nil {
			return c.canonical(p), nil
		}
	}
	return "", fmt.Errorf("not found in %v", libDirs)
}

// Files returns everything copied so far, sorted by path so that the image
// key does not depend on map order.
func (c *rootfsCopier) Files() []file {
	out := make([]file, 0, len(c.files))
	for _, f := range c.files {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
