package kindcluster

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/handover-sh/handover/clusters/nodeaccess"
)

// kind names a Node after its container (the container's hostname); a
// cloud's kubelet may be named otherwise: kubeadm then gives the kubelet
// --hostname-override (it does whenever nodeRegistration names the node
// other than its hostname; on aws, the instance's private DNS name, which
// the in-tree aws kubelet registers under too). So a node's name is in its
// kubelet's flags from the moment kubeadm starts the kubelet, before the
// Node registers and before any static pod runs; it is read through the
// container's root (no process per read) and remembered for a container
// since gone.

// kubeletFlagsFile is where kubeadm writes the kubelet's flags.
const kubeletFlagsFile = "/var/lib/kubelet/kubeadm-flags.env"

// nameFresh is how long a name read from a node's kubelet flags is used
// without reading them again. The observers ask for every control plane's
// name at every tick (twice a second, by several pollers); the file
// changes only when kubeadm starts a kubelet or a procedure switches one,
// and this process's own writes of it are seen at once (stale).
const nameFresh = 2 * time.Second

// nodeNames remembers the last name read for each container, and when.
type nodeNames struct {
	mu     sync.Mutex
	toNode map[string]string
	readAt map[string]time.Time
}

func (m *nodeNames) remember(container, node string, at time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.toNode == nil {
		m.toNode, m.readAt = map[string]string{}, map[string]time.Time{}
	}
	m.toNode[container], m.readAt[container] = node, at
}

func (m *nodeNames) node(container string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.toNode[container]
	return n, ok
}

// fresh is the name read for container less than nameFresh before now.
func (m *nodeNames) fresh(container string, now time.Time) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	at, ok := m.readAt[container]
	if !ok || now.Sub(at) >= nameFresh || now.Before(at) {
		return "", false
	}
	return m.toNode[container], true
}

// stale makes the next NodeName of container read its flags again (the
// name itself stays known for a container since gone).
func (m *nodeNames) stale(container string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.readAt, container)
}

// HostnameOverride is the --hostname-override of kubeadm's kubelet flags
// file, "" when it has none.
func HostnameOverride(flags string) string {
	v, _ := kubeadmFlag(flags, "hostname-override")
	return v
}

// kubeadmFlags are the flags of kubeadm's KUBELET_KUBEADM_ARGS line.
func kubeadmFlags(env string) []string {
	return strings.Fields(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(env), `KUBELET_KUBEADM_ARGS="`), `"`))
}

// kubeadmFlag is one flag's value in that line, and whether it is there.
func kubeadmFlag(env, name string) (string, bool) {
	for _, f := range kubeadmFlags(env) {
		if v, ok := strings.CutPrefix(f, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// NodeName is the name a node container's kubelet registers its Node
// under: its hostname override, else the container's own name. found is
// false for a node whose kubelet has no flags yet (kubeadm has not run)
// and that was never read before.
func (c *Cluster) NodeName(ctx context.Context, container string) (name string, found bool, err error) {
	now := time.Now()
	if n, ok := c.names.fresh(container, now); ok {
		return n, true, nil
	}
	flags, err := c.kubeletFlags(ctx, container)
	if err == nil {
		name = container
		if o := HostnameOverride(flags); o != "" {
			name = o
		}
		c.names.remember(container, name, now)
		return name, true, nil
	}
	if n, ok := c.names.node(container); ok {
		return n, true, nil
	}
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, errNoContainer) {
		return container, false, nil
	}
	return container, false, err
}

var errNoContainer = errors.New("no running node container")

// kubeletFlags reads a running node's kubelet flags file: through its
// root, or in the node where that root is out of reach.
func (c *Cluster) kubeletFlags(ctx context.Context, container string) (string, error) {
	pid, err := c.PID(ctx, container)
	if err != nil || pid == 0 {
		return "", errNoContainer
	}
	raw, err := nodeaccess.ReadFile(pid, kubeletFlagsFile)
	if errors.Is(err, nodeaccess.ErrNoRoot) {
		n, nerr := c.node(container)
		if nerr != nil {
			return "", errNoContainer
		}
		out, rerr := run(ctx, n, "sh", "-c", "test -e "+kubeletFlagsFile+" || exit 3; cat "+kubeletFlagsFile)
		if rerr != nil {
			return "", os.ErrNotExist
		}
		return out, nil
	}
	return string(raw), err
}

// ContainerOf is the node container whose kubelet registers the named
// Node (the name itself when none does).
func (c *Cluster) ContainerOf(ctx context.Context, node string) (string, error) {
	all, err := c.Nodes()
	if err != nil {
		return node, err
	}
	for _, n := range all {
		if name, found, _ := c.NodeName(ctx, n.String()); found && name == node {
			return n.String(), nil
		}
	}
	c.names.mu.Lock()
	defer c.names.mu.Unlock()
	for ctr, n := range c.names.toNode {
		if n == node {
			return ctr, nil
		}
	}
	return node, nil
}

// NodeNameFromMetadata is the kubeadm node name that a node's bootstrap
// fills in from its instance's metadata before kubeadm runs (cluster-api's
// AWS templates name nodes so: the private DNS name).
const NodeNameFromMetadata = "{{ ds.meta_data.local_hostname }}"
