package readonly

import (
	"fmt"
	"net/http"
)

// ErrWrite is returned for any request that is not a read.
type ErrWrite struct{ Method, URL string }

func (e *ErrWrite) Error() string {
	return fmt.Sprintf("read-only: refused %s %s (handover observe never changes a cluster)", e.Method, e.URL)
}

// guard refuses every request but GET and HEAD: a watch is a GET, and
// every write (create, update, patch, delete, even a SubjectAccessReview)
// is not.
type guard struct{ next http.RoundTripper }

func (g guard) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return nil, &ErrWrite{Method: r.Method, URL: r.URL.String()}
	}
	return g.next.RoundTrip(r)
}

// Guard wraps a transport so that it only reads.
func Guard(rt http.RoundTripper) http.RoundTripper { return guard{next: rt} }
