package observe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/handover-sh/handover/verify/timeline"
)

// managerPorts are where each manager serves /healthz on its node.
var managerPorts = map[string]string{"kube-controller-manager": "10257", "cloud-controller-manager": "10258"}

var checkLine = regexp.MustCompile(`^\[\+\]([a-z0-9-]+) ok`)

// pollHealth asks every manager on every control plane, in parallel, which
// controllers it has started.
func (ob *Observer) pollHealth(ctx context.Context) {
	ob.pollManagers(ctx, ob.o.HealthEvery, &nodeClients{byNode: map[string]*http.Client{}}, ob.sample)
}

// pollManagers samples every manager on every control plane, in parallel,
// at each tick.
func (ob *Observer) pollManagers(ctx context.Context, d time.Duration, clients *nodeClients,
	sample func(context.Context, *nodeClients, string, string) timeline.Event) {
	nodes := ob.controlPlaneList()
	every(ctx, d, func(ctx context.Context) {
		var wg sync.WaitGroup
		for _, n := range nodes() {
			for comp := range managerPorts {
				wg.Add(1)
				go func(node, comp string) {
					defer wg.Done()
					if e := sample(ctx, clients, node, comp); ctx.Err() == nil {
						ob.emit(e)
					}
				}(n, comp)
			}
		}
		wg.Wait()
	})
}

// controlPlaneList returns the control planes, re-listed at most every 3 s
// (nodes join and go during a migration).
func (ob *Observer) controlPlaneList() func() []string {
	var nodes []string
	var refreshed time.Time
	return func() []string {
		if time.Since(refreshed) > 3*time.Second {
			nodes, refreshed = ob.controlPlanes(), time.Now()
		}
		return nodes
	}
}

func (ob *Observer) controlPlanes() []string {
	cps, err := ob.o.Cluster.ControlPlanes()
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(cps))
	for _, n := range cps {
		out = append(out, n.String())
	}
	return out
}

func (ob *Observer) sample(ctx context.Context, clients *nodeClients, node, comp string) timeline.Event {
	e := timeline.Event{Source: "health", Kind: timeline.Health, Manager: comp, Instance: node, Attrs: map[string]string{"up": "false"}}
	c, err := clients.get(ctx, node)
	if err != nil {
		e.Attrs["error"] = err.Error()
		return e
	}
	rctx, cancel := context.WithTimeout(ctx, 400*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(rctx, http.MethodGet, "https://127.0.0.1:"+managerPorts[comp]+"/healthz?verbose", nil)
	resp, err := c.Do(req)
	if err != nil {
		e.Attrs["error"] = err.Error()
		if isNetnsErr(err) {
			clients.drop(node) // the node may have restarted under a new PID
		}
		return e
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e.Attrs["up"] = "true"
	e.Attrs["controllers"] = strings.Join(ob.started(string(body)), ",")
	return e
}

// started picks the watched controllers out of a verbose healthz body.
func (ob *Observer) started(body string) []string {
	want := map[string]bool{}
	for _, c := range ob.o.Controllers {
		want[c] = true
	}
	var out []string
	for _, l := range strings.Split(body, "\n") {
		if m := checkLine.FindStringSubmatch(l); m != nil && want[m[1]] {
			out = append(out, m[1])
		}
	}
	sort.Strings(out)
	return out
}

// nodeClients keeps one keep-alive client per node, dialing inside it.
type nodeClients struct {
	mu     sync.Mutex
	byNode map[string]*http.Client
	cert   *tls.Certificate // presented when set
}

func isNetnsErr(err error) bool { return errors.Is(err, errNetns) }

func (n *nodeClients) get(ctx context.Context, node string) (*http.Client, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if c, ok := n.byNode[node]; ok {
		return c, nil
	}
	pid, err := containerPID(ctx, node)
	if err != nil {
		return nil, err
	}
	tlsc := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the managers' self-signed serving certs
	if n.cert != nil {
		tlsc.Certificates = []tls.Certificate{*n.cert}
	}
	c := &http.Client{Transport: &http.Transport{
		TLSClientConfig: tlsc,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := dialInNetns(ctx, pid, network, addr)
			if err != nil {
				return nil, fmt.Errorf("node %s: %w", node, err)
			}
			return conn, nil
		},
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     30 * time.Second,
	}}
	n.byNode[node] = c
	return c, nil
}

func (n *nodeClients) drop(node string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if c, ok := n.byNode[node]; ok {
		c.CloseIdleConnections()
		delete(n.byNode, node)
	}
}
