package observe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

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

// The families readMetrics reads.
const (
	runningControllers = "running_managed_controllers"
	leaderStatus       = "leader_election_master_status"
)

// readMetrics picks the watched controllers that run and the leases led
// out of a Prometheus text exposition, as Prometheus's own parser reads
// it (expfmt: label order, escapes and sample values). Only the lines of
// the two families it wants are parsed: a manager's page is thousands of
// lines, scraped every second from every manager.
func (ob *Observer) readMetrics(r io.Reader) (controllers, leases []string, err error) {
	lines, err := familyLines(r, runningControllers, leaderStatus)
	if err != nil {
		return nil, nil, err
	}
	var p expfmt.TextParser
	families, err := p.TextToMetricFamilies(bytes.NewReader(lines))
	if err != nil {
		return nil, nil, fmt.Errorf("reading /metrics: %w", err)
	}
	want := map[string]bool{}
	for _, c := range ob.o.Controllers {
		want[c] = true
	}
	for _, m := range families[runningControllers].GetMetric() {
		if c := managers.ShortNames[label(m, "name")]; want[c] && value(m) == 1 {
			controllers = append(controllers, c)
		}
	}
	for _, m := range families[leaderStatus].GetMetric() {
		if value(m) == 1 {
			leases = append(leases, label(m, "name"))
		}
	}
	sort.Strings(controllers)
	sort.Strings(leases)
	return controllers, leases, nil
}

// familyLines copies the lines of the families named out of a text
// exposition: their samples and their # HELP and # TYPE comments.
func familyLines(r io.Reader, families ...string) ([]byte, error) {
	names := make([][]byte, len(families))
	for i, f := range families {
		names[i] = []byte(f)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), 1<<20)
	for sc.Scan() {
		if b := sc.Bytes(); ofFamily(b, names) {
			out.Write(b)
			out.WriteByte('\n')
		}
	}
	return out.Bytes(), sc.Err()
}

var helpComment, typeComment = []byte("# HELP "), []byte("# TYPE ")

// ofFamily says whether line is a sample or a comment of one of families.
func ofFamily(line []byte, families [][]byte) bool {
	if len(line) > 0 && line[0] == '#' {
		if !bytes.HasPrefix(line, helpComment) && !bytes.HasPrefix(line, typeComment) {
			return false
		}
		line = line[len(helpComment):] // as long as typeComment
	}
	for _, f := range families {
		if len(line) > len(f) && bytes.HasPrefix(line, f) && (line[len(f)] == '{' || line[len(f)] == ' ') {
			return true
		}
	}
	return false
}

// label is one label's value of a sample ("" when it has none).
func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// value is a gauge's or an untyped sample's value.
func value(m *dto.Metric) float64 {
	if g := m.GetGauge(); g != nil {
		return g.GetValue()
	}
	return m.GetUntyped().GetValue()
}
