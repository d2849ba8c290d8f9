package nodeimage

import (
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"sigs.k8s.io/kind/pkg/log"
)

// An image without a user keys as images did before they could have one
// (so cached archives and the node images holding them stay valid); a user
// changes the key and is the image's USER.
func TestImageUser(t *testing.T) {
	b := &Builder{Logger: log.NoopLogger{}, CacheDir: t.TempDir()}
	spec := imageSpec{Refs: []string{"example.test/xx:v1"}, Entrypoint: []string{"/x"},
		Files: []file{{Path: "/x", Mode: 0o755, Data: []byte("x")}}}
	plain, err := b.cachedImage(spec)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Key != "64eabda0a0eb62b7" {
		t.Errorf("a user-less image keys as %s, not as before", plain.Key)
	}
	spec.User = "65532:65532"
	user, err := b.cachedImage(spec)
	if err != nil {
		t.Fatal(err)
	}
	if user.Key == plain.Key {
		t.Error("a user did not change the image's key")
	}
	for _, c := range []struct {
		a    archive
		want string
	}{{plain, ""}, {user, "65532:65532"}} {
		tag, _ := name.NewTag("example.test/xx:v1")
		img, err := tarball.ImageFromPath(c.a.Path, &tag)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := img.ConfigFile()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Config.User != c.want {
			t.Errorf("%s: user %q, want %q", filepath.Base(filepath.Dir(c.a.Path)), cfg.Config.User, c.want)
		}
	}
}
