package managers

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/handover-sh/handover/clusters/nodeaccess"
)

// Clients reach the managers of every node from inside the node's network
// namespace, with one keep-alive client per node: a poll costs an HTTP
// request on an open connection, not a process.
type Clients struct {
	// PID finds a node container's init (its network namespace).
	PID func(ctx context.Context, node string) (int, error)
	// Cert, when set, is presented to the managers (their delegated
	// authorization allows /metrics to the cluster admin).
	Cert *tls.Certificate

	mu     sync.Mutex
	byNode map[string]*http.Client
}

// Answer is one manager's reply.
type Answer struct {
	Status int
	Body   []byte
}

// ErrNotListening says nothing listens on the manager's port: the manager
// is not running.
var ErrNotListening = errors.New("manager not listening")

// Get asks the manager comp on node for path (e.g. "/healthz?verbose").
func (c *Clients) Get(ctx context.Context, node, comp, path string, timeout time.Duration) (Answer, error) {
	var a Answer
	err := c.Stream(ctx, node, comp, path, timeout, func(status int, body io.Reader) error {
		var err error
		a.Status = status
		a.Body, err = io.ReadAll(body)
		return err
	})
	return a, err
}

// Stream asks the manager comp on node for path and hands read the answer's
// status and body (at most 1 MiB) as it arrives: a /metrics page is read
// line by line several times a second, and not kept.
func (c *Clients) Stream(ctx context.Context, node, comp, path string, timeout time.Duration, read func(status int, body io.Reader) error) error {
	port, ok := Ports[comp]
	if !ok {
		return fmt.Errorf("no manager %q (known: %v)", comp, Names())
	}
	hc, err := c.client(ctx, node)
	if err != nil {
		return err
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(rctx, http.MethodGet, "https://127.0.0.1:"+port+path, nil)
	resp, err := hc.Do(req)
	if err != nil {
		if errors.Is(err, nodeaccess.ErrNetns) {
			c.drop(node) // the node may have restarted under a new PID
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Errorf("%w: %s on %s: %v", ErrNotListening, comp, node, err)
		}
		return err
	}
	return ReadAnswer(resp, read)
}

// ReadAnswer hands read a manager's answer (status, and at most 1 MiB of
// body), then drains what read left so the connection is kept for the next
// poll, and closes the body.
func ReadAnswer(resp *http.Response, read func(status int, body io.Reader) error) error {
	defer resp.Body.Close()
	body := io.LimitReader(resp.Body, 1<<20)
	if err := read(resp.StatusCode, body); err != nil {
		return err
	}
	_, err := io.Copy(io.Discard, body)
	return err
}

// Controllers asks a manager which controllers it has started; a manager
// that is not listening has started none.
func (c *Clients) Controllers(ctx context.Context, node, comp string, timeout time.Duration) (map[string]bool, error) {
	a, err := c.Get(ctx, node, comp, "/healthz?verbose", timeout)
	if errors.Is(err, ErrNotListening) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	return Controllers(string(a.Body)), nil
}

func (c *Clients) client(ctx context.Context, node string) (*http.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if hc, ok := c.byNode[node]; ok {
		return hc, nil
	}
	pid, err := c.PID(ctx, node)
	if err != nil {
		return nil, err
	}
	tlsc := &tls.Config{InsecureSkipVerify: true} //nolint:gosec // the managers' self-signed serving certs
	if c.Cert != nil {
		tlsc.Certificates = []tls.Certificate{*c.Cert}
	}
	hc := &http.Client{Transport: &http.Transport{
		TLSClientConfig: tlsc,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := nodeaccess.Dial(ctx, pid, network, addr)
			if err != nil {
				return nil, fmt.Errorf("node %s: %w", node, err)
			}
			return conn, nil
		},
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     30 * time.Second,
		// Uncompressed: gzip of a /metrics page every poll costs the
		// manager more CPU than a loopback transfer of it.
		DisableCompression: true,
	}}
	if c.byNode == nil {
		c.byNode = map[string]*http.Client{}
	}
	c.byNode[node] = hc
	return hc, nil
}

// Drop forgets a node's client (its container went or restarted).
func (c *Clients) drop(node string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if hc, ok := c.byNode[node]; ok {
		hc.CloseIdleConnections()
		delete(c.byNode, node)
	}
}
