package observe

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/clusters/nodeaccess"
)

// KindReach reaches a handover cluster's managers, API servers and audit
// logs through its node containers: the managers on each node's loopback
// from inside its network namespace, the audit log (auditLog, "" for none)
// through its root filesystem. cert, when set, is presented to the
// managers for /metrics.
//
// Every instance is named as its Node is (a cloud's kubelet may name it
// otherwise than its container), so samples meet the node watch's names;
// each is reached through its container.
func KindReach(c *kindcluster.Cluster, auditLog string, cert *tls.Certificate) Reach {
	k := &kindReach{c: c, auditLog: auditLog, pids: map[string]int{}, containers: map[string]string{}}
	k.health = &managers.Clients{PID: k.pid}
	k.metrics = &managers.Clients{PID: k.pid, Cert: cert}
	return k
}

type kindReach struct {
	c               *kindcluster.Cluster
	auditLog        string
	health, metrics *managers.Clients

	mu         sync.Mutex
	pids       map[string]int
	containers map[string]string // Node name → container
}

// nodeName is a control plane's Node name, remembering its container;
// ok is false while the node has no kubelet yet (kubeadm has not started
// one), its name not known. Its API server is probed only from then on:
// probes before would be charged to a name the node may never have (on
// aws, its API server's failures while it joins to its container's name).
func (k *kindReach) nodeName(container string) (string, bool) {
	name, found, _ := k.c.NodeName(context.Background(), container)
	if !found {
		return "", false
	}
	k.mu.Lock()
	k.containers[name] = container
	k.mu.Unlock()
	return name, true
}

// container is the container of a Node named by nodeName.
func (k *kindReach) container(node string) string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if c, ok := k.containers[node]; ok {
		return c
	}
	return node
}

// pid is the init PID of a Node's container.
func (k *kindReach) pid(ctx context.Context, node string) (int, error) {
	return k.c.PID(ctx, k.container(node))
}

func (k *kindReach) Fixed() ([]Endpoint, bool)       { return nil, false }
func (k *kindReach) Health() ManagerReach            { return kindManagers{k, k.health} }
func (k *kindReach) Metrics() (ManagerReach, string) { return kindManagers{k, k.metrics}, "" }

// controlPlanes lists the control planes: from the engine's event-fed
// cache, so asking at every tick costs nothing, and a node that joins or
// goes is seen at the next tick.
func (k *kindReach) controlPlanes() []string {
	cps, err := k.c.ControlPlanes()
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(cps))
	for _, n := range cps {
		name, ok := k.nodeName(n.String())
		if !ok {
			name = n.String() // kind's name, until its kubelet says otherwise
		}
		out = append(out, name)
	}
	return out
}

func (k *kindReach) APIServers() []APIServer {
	cps, err := k.c.ControlPlanes()
	if err != nil {
		return nil
	}
	var out []APIServer
	for _, n := range cps {
		ip, _, err := n.IP()
		name, ok := k.nodeName(n.String())
		if err != nil || !ok {
			continue
		}
		out = append(out, APIServer{Instance: name, URL: "https://" + net.JoinHostPort(ip, "6443") + "/readyz"})
	}
	return out
}

func (k *kindReach) AuditLogs() []AuditLog {
	if k.auditLog == "" {
		return nil
	}
	var out []AuditLog
	for _, n := range k.controlPlanes() {
		out = append(out, AuditLog{Instance: n, Open: func(ctx context.Context) (*os.File, error) { return k.openInNode(ctx, n) },
			Lost: func() { k.lost(n) }})
	}
	return out
}

// openInNode opens the audit log in the node container's root file system
// from here, resolved inside that root, so no process runs in the node per
// poll and no symlink in the node reaches a host file.
func (k *kindReach) openInNode(ctx context.Context, node string) (*os.File, error) {
	k.mu.Lock()
	pid := k.pids[node]
	k.mu.Unlock()
	if pid == 0 {
		var err error
		if pid, err = k.pid(ctx, node); err != nil {
			return nil, err
		}
		k.mu.Lock()
		k.pids[node] = pid
		k.mu.Unlock()
	}
	return nodeaccess.Open(pid, k.auditLog)
}

// lost forgets a node's PID once its root is gone: the container stopped
// or restarted under another PID.
func (k *kindReach) lost(node string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if pid := k.pids[node]; pid != 0 {
		if _, err := os.Stat(nodeaccess.Root(pid, "")); err != nil {
			delete(k.pids, node)
		}
	}
}

// kindManagers samples both managers on every control plane.
type kindManagers struct {
	k       *kindReach
	clients *managers.Clients
}

func (m kindManagers) Endpoints() []Endpoint {
	var out []Endpoint
	for _, n := range m.k.controlPlanes() {
		for _, comp := range managers.Names() {
			out = append(out, Endpoint{Manager: comp, Instance: n})
		}
	}
	return out
}

func (m kindManagers) Stream(ctx context.Context, ep Endpoint, path string, timeout time.Duration, read func(int, io.Reader) error) error {
	return m.clients.Stream(ctx, ep.Instance, ep.Manager, path, timeout, read)
}
