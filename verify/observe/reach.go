package observe

import (
	"context"
	"io"
	"os"
	"time"
)

// Reach is how the observers get past the Kubernetes API: to each
// controller manager's /healthz and /metrics, to each API server, and to
// the API servers' audit logs. handover's own clusters are reached through
// their node containers (KindReach); any other cluster only where its user
// says (Foreign).
type Reach interface {
	// Health and Metrics reach the managers for each poller: a /metrics
	// page needs credentials a health poll does without. A reach that
	// cannot read /metrics by design says why (unavailable), and nothing
	// samples them.
	Health() ManagerReach
	Metrics() (mr ManagerReach, unavailable string)
	// APIServers are the API servers probed one by one, besides the
	// endpoint the client uses.
	APIServers() []APIServer
	// AuditLogs are the API servers' audit logs to follow.
	AuditLogs() []AuditLog
	// Fixed lists the managers sampled throughout, when the reach knows
	// them up front (ok false: every manager on every control plane, as
	// control planes come and go). The evidence check holds the pollers
	// to exactly these.
	Fixed() (eps []Endpoint, ok bool)
}

// ManagerReach samples controller managers.
type ManagerReach interface {
	// Endpoints lists the managers to sample at this tick.
	Endpoints() []Endpoint
	// Stream asks one manager for path and hands read the status and body.
	Stream(ctx context.Context, ep Endpoint, path string, timeout time.Duration, read func(status int, body io.Reader) error) error
}

// Endpoint is one manager: which binary (kube-controller-manager or
// cloud-controller-manager) on which instance (a node's name, or the host
// of a URL the user gave).
type Endpoint struct {
	Manager, Instance string
}

// APIServer is one API server probed on its own: its instance (node) and
// the URL of its /readyz.
type APIServer struct {
	Instance, URL string
}

// AuditLog is one API server's audit log as a file this process can read;
// Open opens it afresh, to see a node container that restarted or a log
// that rotated (the follower holds the file between, and opens it again
// every few seconds), and fails while the file cannot be reached.
type AuditLog struct {
	Instance string
	Open     func(ctx context.Context) (*os.File, error)
	// Lost says Open or the read failed: the next Open looks again (nil:
	// nothing to forget).
	Lost func()
}
