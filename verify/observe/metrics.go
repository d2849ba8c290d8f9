package observe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/timeline"
)

// pollMetrics reads every manager's /metrics on every control plane: which
// cloud controllers it says it started (running_managed_controllers) and
// which leases it says it leads (leader_election_master_status). It is a
// second account of the managers' activity, independent of /healthz.
func (ob *Observer) pollMetrics(ctx context.Context) {
	if ob.o.Reach == nil {
		return
	}
	if mr, unavailable := ob.o.Reach.Metrics(); unavailable == "" {
		ob.pollManagers(ctx, ob.o.MetricsEvery, mr, ob.scrape)
	}
}

// scrapeTimeout: a request cut short closes its connection, and the next
// one pays a TLS handshake on both sides; on a loaded 2-core host a scrape
// can take most of a second.
const scrapeTimeout = 2 * time.Second

func (ob *Observer) scrape(ctx context.Context, mr ManagerReach, ep Endpoint) timeline.Event {
	e := timeline.Event{Source: "metrics", Kind: timeline.Metrics, Manager: ep.Manager, Instance: ep.Instance, Attrs: map[string]string{"up": "false"}}
	var controllers, leases []string
	err := mr.Stream(ctx, ep, "/metrics", scrapeTimeout, func(status int, body io.Reader) error {
		if status != http.StatusOK {
			return errors.New(http.StatusText(status))
		}
		var err error
		controllers, leases, err = ob.readMetrics(body)
		return err
	})
	if err != nil {
		return failed(e, err)
	}
	e.Attrs["up"] = "true"
	e.Attrs["controllers"] = strings.Join(controllers, ",")
	e.Attrs["leases"] = strings.Join(leases, ",")
	return e
}

var (
	runningControllers = []byte("running_managed_controllers{")
	leaderStatus       = []byte("leader_election_master_status{")
)

// readMetrics picks the watched controllers that run and the leases led
// out of a Prometheus text exposition. Only the two families it wants
// become strings: a manager's page is thousands of lines.
func (ob *Observer) readMetrics(r io.Reader) (controllers, leases []string, err error) {
	want := map[string]bool{}
	for _, c := range ob.o.Controllers {
		want[c] = true
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), 1<<20)
	for sc.Scan() {
		b := sc.Bytes()
		switch {
		case bytes.HasPrefix(b, runningControllers):
			l := string(b)
			if c := managers.ShortNames[label(l, "name")]; want[c] && sampleValue(l) == "1" {
				controllers = append(controllers, c)
			}
		case bytes.HasPrefix(b, leaderStatus):
			if l := string(b); sampleValue(l) == "1" {
				leases = append(leases, label(l, "name"))
			}
		}
	}
	sort.Strings(controllers)
	sort.Strings(leases)
	return controllers, leases, sc.Err()
}

// label reads one label's value from a sample line.
func label(line, name string) string {
	i := strings.Index(line, name+`="`)
	if i < 0 {
		return ""
	}
	rest := line[i+len(name)+2:]
	j := strings.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return rest[:j]
}

// sampleValue is the value after a sample's labels.
func sampleValue(line string) string {
	i := strings.LastIndexByte(line, '}')
	if i < 0 {
		return ""
	}
	f := strings.Fields(line[i+1:])
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
