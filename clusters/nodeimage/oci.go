package nodeimage

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// file is one entry of an image layer.
type file struct {
	Path string // absolute path inside the image
	Mode int64
	Src  string // host file to copy (regular files)
	Data []byte // literal content when Src is empty
	Link string // symlink target (symlinks)
	Dir  bool
}

// imageSpec is a single-layer image written as a `docker save` archive.
type imageSpec struct {
	Refs       []string
	Files      []file
	Entrypoint []string
	Env        []string
	User       string // the config's User ("" = root)
}

// baseFiles make a scratch image usable by ordinary programs.
func baseFiles() []file {
	return []file{
		{Path: "/etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n")},
		{Path: "/etc/group", Mode: 0o644, Data: []byte("root:x:0:\nnobody:x:65534:\n")},
		{Path: "/etc/nsswitch.conf", Mode: 0o644, Data: []byte("hosts: files dns\n")},
		{Path: "/tmp", Mode: 0o1777, Dir: true},
	}
}

const defaultPath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// writeImage writes spec to dest in the format `docker load` and
// `ctr images import` read. Timestamps are fixed so equal inputs give equal
// images. The image carries key as a label so a loaded copy can be
// recognised without reading it back.
func writeImage(spec imageSpec, dest, key string) error {
	layerTar, err := layerBytes(spec.Files)
	if err != nil {
		return err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	})
	if err != nil {
		return err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", "amd64"
	cfg.Config.Entrypoint = spec.Entrypoint
	cfg.Config.Env = append([]string{defaultPath}, spec.Env...)
	cfg.Config.User = spec.User
	cfg.Config.Labels = map[string]string{KeyLabel: key}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return err
	}
	refs := map[name.Reference]v1.Image{}
	for _, r := range spec.Refs {
		tag, err := name.NewTag(r)
		if err != nil {
			return fmt.Errorf("image name %q: %w", r, err)
		}
		refs[tag] = img
	}
	return tarball.MultiRefWriteToFile(dest, refs)
}

func layerBytes(files []file) ([]byte, error) {
	sorted := append([]file(nil), files...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	epoch := time.Unix(0, 0)
	for _, f := range sorted {
		if err := writeEntry(tw, f, epoch); err != nil {
			return nil, fmt.Errorf("adding %s: %w", f.Path, err)
		}
	}
	return buf.Bytes(), tw.Close()
}

func writeEntry(tw *tar.Writer, f file, mtime time.Time) error {
	h := &tar.Header{Name: f.Path[1:], Mode: f.Mode, ModTime: mtime}
	switch {
	case f.Dir:
		h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		return tw.WriteHeader(h)
	case f.Link != "":
		h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, f.Link, 0o777
		return tw.WriteHeader(h)
	}
	data := f.Data
	if f.Src != "" {
		var err error
		if data, err = os.ReadFile(f.Src); err != nil {
			return err
		}
	}
	h.Typeflag, h.Size = tar.TypeReg, int64(len(data))
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}
