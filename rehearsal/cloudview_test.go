package rehearsal

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// An ELB name whose load balancer is gone (its Service deleted meanwhile)
// is an error to the probes, not a crash.
func TestResolveLBOfAGoneLoadBalancer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"not found"}`, http.StatusNotFound)
	}))
	defer srv.Close()
	v := simCloudView{c: api.NewClient(srv.URL, "test")}
	_, err := v.ResolveLB(context.Background(), "a0123456789abcdef-0123456789.sim-region-1.elb.amazonaws.com")
	if err == nil || !strings.Contains(err.Error(), "no load balancer a0123456789abcdef") {
		t.Errorf("a gone load balancer: %v", err)
	}
}

// A load balancer's connection draining reads on the timeline as
// timeline.LBDraining says it.
func TestDrainingAttr(t *testing.T) {
	for d, want := range map[*api.Draining]string{nil: "", {}: "off", {Enabled: true, Timeout: 300}: "5m0s"} {
		if got := drainingAttr(d); got != want {
			t.Errorf("%+v: %q, want %q", d, got, want)
		}
	}
}
