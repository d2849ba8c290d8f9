package observe

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/handover-sh/handover/timeline"
)

// probeClient without keepAlive never reuses connections: each probe is a
// new request as a client would make after a failure, so a dead backend
// behind a balancer shows at once. An API server probed directly keeps its
// connection: one that dies closes it, and the next probe fails as fast,
// without a TLS handshake on both sides four times a second.
//
// Four new TLS connections a second to the endpoint were 15 % of a
// rehearsal's own CPU: they resume the session where the server allows it
// (no certificate signature on the API server), and offer X25519 alone (the
// hybrid post-quantum exchange Go offers by default costs both sides more,
// for a probe whose answer is public).
func probeClient(keepAlive bool) *http.Client {
	return &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true, //nolint:gosec // probes read /readyz only
			CurvePreferences: []tls.CurveID{tls.X25519}, ClientSessionCache: tls.NewLRUClientSessionCache(16)},
		DisableKeepAlives:   !keepAlive,
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     30 * time.Second,
	}}
}

type target struct {
	kind, name, url, node string
	c                     *http.Client
}

// probeAPI asks /readyz of the control-plane endpoint (through its
// balancer, a new connection each time) and of every API server (its own
// kept connection), every ProbeEvery.
func (ob *Observer) probeAPI(ctx context.Context) {
	fresh, kept := probeClient(false), probeClient(true)
	var targets []target
	refreshed := time.Time{}
	every(ctx, ob.o.ProbeEvery, func(ctx context.Context) {
		if time.Since(refreshed) > 3*time.Second {
			targets = ob.apiTargets(fresh, kept)
			refreshed = time.Now()
		}
		ob.probeAll(ctx, targets)
	})
}

func (ob *Observer) apiTargets(fresh, kept *http.Client) []target {
	out := []target{{kind: "api", name: "endpoint", url: ob.o.REST.Host + "/readyz", c: fresh}}
	if ob.o.Reach == nil {
		return out
	}
	for _, a := range ob.o.Reach.APIServers() {
		out = append(out, target{kind: "api", name: a.Instance, node: a.Instance, url: a.URL, c: kept})
	}
	return out
}

// probeLBs sends HTTP requests through every LoadBalancer Service's IP.
func (ob *Observer) probeLBs(ctx context.Context) {
	if ob.o.NoLBProbes {
		return
	}
	c := probeClient(false)
	var targets []target
	refreshed := time.Time{}
	every(ctx, ob.o.ProbeEvery, func(ctx context.Context) {
		if time.Since(refreshed) > 3*time.Second {
			targets = ob.lbTargets(ctx, c)
			refreshed = time.Now()
		}
		ob.probeAll(ctx, targets)
	})
}

func (ob *Observer) lbTargets(ctx context.Context, c *http.Client) []target {
	svcs, err := ob.o.Client.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	var out []target
	for _, s := range svcs.Items {
		if s.Spec.Type != corev1.ServiceTypeLoadBalancer || len(s.Status.LoadBalancer.Ingress) == 0 || len(s.Spec.Ports) == 0 ||
			s.DeletionTimestamp != nil || (ob.o.NoTrafficLabel != "" && s.Labels[ob.o.NoTrafficLabel] == "true") {
			continue
		}
		host := ob.lbHost(ctx, s.Status.LoadBalancer.Ingress[0])
		port := strconv.Itoa(int(s.Spec.Ports[0].Port))
		out = append(out, target{kind: "lb", name: s.Namespace + "/" + s.Name, url: "http://" + net.JoinHostPort(host, port) + "/", c: c})
	}
	return out
}

// lbHost is where a probe of a load balancer goes: its IP, or the address
// its DNS name resolves to; a name that does not resolve is probed as it
// is, and fails as a client's request would.
func (ob *Observer) lbHost(ctx context.Context, in corev1.LoadBalancerIngress) string {
	if in.IP != "" {
		return in.IP
	}
	if ob.o.ResolveLB == nil {
		return in.Hostname
	}
	if ip, err := ob.o.ResolveLB(ctx, in.Hostname); err == nil && ip != "" {
		return ip
	}
	return in.Hostname
}

func (ob *Observer) probeAll(ctx context.Context, targets []target) {
	var wg sync.WaitGroup
	for _, t := range targets {
		wg.Add(1)
		go func(t target) {
			defer wg.Done()
			if e := probeOnce(ctx, t); ctx.Err() == nil { // a probe cut short by Stop says nothing
				ob.emit(e)
			}
		}(t)
	}
	wg.Wait()
}

func probeOnce(ctx context.Context, t target) timeline.Event {
	start := time.Now()
	e := timeline.Event{Time: start.UTC(), Source: "probe", Kind: timeline.Probe,
		Attrs: map[string]string{"kind": t.kind, "target": t.name, "node": t.node, "ok": "false"}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, t.url, nil)
	resp, err := t.c.Do(req)
	e.Attrs["ms"] = strconv.FormatInt(time.Since(start).Milliseconds(), 10)
	if err != nil {
		e.Attrs["error"] = err.Error()
		return e
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		e.Attrs["error"] = fmt.Sprintf("HTTP %d", resp.StatusCode) + failedChecks(resp.Body)
		return e
	}
	e.Attrs["ok"] = "true"
	return e
}

// failedChecks names the checks an API server's /readyz or /livez says
// failed ("[-]etcd failed: reason withheld"), so that an outage's evidence
// says why; other bodies add nothing.
func failedChecks(body io.Reader) string {
	var failed []string
	sc := bufio.NewScanner(io.LimitReader(body, 64<<10))
	for sc.Scan() {
		if name, ok := strings.CutPrefix(sc.Text(), "[-]"); ok {
			name, _, _ = strings.Cut(name, " ")
			failed = append(failed, name)
		}
	}
	if len(failed) == 0 {
		return ""
	}
	return ": failed " + strings.Join(failed, ", ")
}
