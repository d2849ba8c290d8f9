package registry

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Push puts an image into the registry as repository:tag
// ("handover/echo:v1"), through the registry's own API (no network, no
// login: the cloud stocking its registry).
func (s *Server) Push(repositoryTag string, img v1.Image) error {
	ref, err := name.NewTag(s.opts.Host + "/" + repositoryTag)
	if err != nil {
		return fmt.Errorf("registry: %q: %w", repositoryTag, err)
	}
	if err := remote.Write(ref, img, remote.WithTransport(storeTransport{s.store})); err != nil {
		return fmt.Errorf("registry: pushing %s: %w", ref, err)
	}
	return nil
}

// PushArchive pushes the image of a `docker save` archive.
func (s *Server) PushArchive(path, repositoryTag string) error {
	img, err := tarball.ImageFromPath(path, nil)
	if err != nil {
		return fmt.Errorf("registry: reading %s: %w", path, err)
	}
	return s.Push(repositoryTag, img)
}

// storeTransport hands every request to the registry's store directly.
type storeTransport struct{ h http.Handler }

func (t storeTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body == nil {
		r = r.Clone(r.Context())
		r.Body = http.NoBody // a server's request always has one
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	resp := rec.Result()
	resp.Request = r // the pusher resolves upload locations against it
	return resp, nil
}
