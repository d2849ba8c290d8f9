package amazon

import (
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// LocalCloud is a client of the simulated cloud served by h in this
// process, carrying its token: the face's calls reach the cloud's handler
// directly, through its guard, audit and knobs, without a socket.
func LocalCloud(h http.Handler, token string) *api.Client {
	c := api.NewClient("http://simcloud.in-process", "")
	c.Token = token
	c.HTTP = &http.Client{Transport: handlerTransport{h}, Timeout: 30 * time.Second}
	return c
}

type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, r)
	return rec.Result(), nil
}
