package kindcluster

import (
	"context"
	"fmt"
	"net"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/kind/pkg/cluster/nodes"

	"github.com/handover-sh/handover/clusters/engine"
	"github.com/handover-sh/handover/clusters/nodeaccess"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/waits"
)

// AddNodeOptions say what node to add.
type AddNodeOptions struct {
	Role       string
	Kubernetes string // node image version; "" = the cluster's
	// Wait bounds the wait for the node to be Ready (default 3m).
	Wait time.Duration
	// KubeletArgs override the kubelet flags the node takes over from the
	// cluster's nodes; an empty value drops the flag.
	KubeletArgs map[string]string
	// Patches are kubeadm patch files (e.g. "kube-apiserver+json.yaml")
	// the join applies to the static pods and the KubeletConfiguration.
	Patches map[string]string
	// Files are written into the node after kubeadm join, before the wait
	// for Ready: extra static pods and the files they mount.
	Files map[string]string
	// LocalAPIServer points a control plane's kubelet at its own API
	// server instead of the balancer, as kubeadm's ControlPlaneKubeletLocalMode
	// does: a kubelet newer than the other API servers must not talk to them
	// (a 1.31 kubelet's Service field selector fails on a 1.30 API server,
	// kubernetes/kubernetes#127316).
	LocalAPIServer bool
	// ByHostname joins the node under its hostname whatever its donor's
	// naming (a deliberate mistake on a cluster named from the instance
	// metadata).
	ByHostname bool
}

// AddNode starts a node container like kind's, joins it with kubeadm, puts a
// control plane behind the balancer once its API server is healthy, and
// waits for the Node to be Ready. A failed add removes the container.
func (c *Cluster) AddNode(ctx context.Context, o AddNodeOptions) (string, error) {
	if o.Role != RoleControlPlane && o.Role != RoleWorker {
		return "", fmt.Errorf("role %q: use %s or %s", o.Role, RoleControlPlane, RoleWorker)
	}
	if o.Wait == 0 {
		o.Wait = waits.Of(ctx, WaitNodeJoin)
	}
	cps, err := c.ControlPlanes()
	if err != nil || len(cps) == 0 {
		return "", fmt.Errorf("cluster %q has no control plane to join: %v", c.Name, err)
	}
	donor, release, err := book.pickDonor(cps)
	if err != nil {
		return "", err
	}
	defer release()
	image, err := c.imageFor(ctx, donor, o.Kubernetes)
	if err != nil {
		return "", err
	}
	name, err := c.nextName(o.Role)
	if err != nil {
		return "", err
	}
	defer book.arrive(name)()
	c.Logger.V(0).Infof(" • Adding %s node %s (%s) ...", o.Role, name, image)
	start := time.Now()
	if err := c.join(ctx, donor, name, image, o); err != nil {
		if dir, lerr := keepNodeLogs(c.Name, name); lerr != nil {
			c.Logger.Warnf("keeping the logs of %s: %v", name, lerr)
		} else {
			c.Logger.V(0).Infof(" • Logs of %s kept in %s (exported with the cluster's logs)", name, dir)
		}
		_ = engine.Remove(context.WithoutCancel(ctx), name)
		c.forget()
		if gerr := c.nodeGone(context.WithoutCancel(ctx), name); gerr != nil {
			c.Logger.Warnf("%v", gerr)
		}
		return "", fmt.Errorf("adding node %s: %w", name, err)
	}
	c.Logger.V(0).Infof(" ✓ Node %s joined and Ready (%s)", name, time.Since(start).Round(time.Second))
	return name, nil
}

func (c *Cluster) join(ctx context.Context, donor nodes.Node, name, image string, o AddNodeOptions) error {
	role := o.Role
	if err := c.startContainer(ctx, donor, name, role, image); err != nil {
		return err
	}
	n, err := c.node(name)
	if err != nil {
		return err
	}
	if err := waitRuntime(ctx, n); err != nil {
		return err
	}
	if err := c.shareImages(ctx, n); err != nil {
		return err
	}
	cfg, err := c.joinConfig(ctx, donor, n, o)
	if err != nil {
		return err
	}
	if err := c.writeFiles(ctx, n, patchDir, o.Patches); err != nil {
		return err
	}
	if role == RoleControlPlane {
		if err := c.copyControlPlaneCerts(ctx, donor, n); err != nil {
			return err
		}
	}
	if err := c.writeFile(ctx, n, "/kind/kubeadm.conf", cfg); err != nil {
		return err
	}
	if _, err := run(ctx, n, "kubeadm", "join", "--config", "/kind/kubeadm.conf", "--skip-phases=preflight", "--v=6"); err != nil {
		return err
	}
	if err := c.writeFiles(ctx, n, "", o.Files); err != nil {
		return err
	}
	if o.LocalAPIServer && role == RoleControlPlane {
		if err := c.useLocalAPIServer(ctx, n); err != nil {
			return err
		}
	}
	if role == RoleControlPlane {
		if err := c.syncBalancer(ctx, ""); err != nil {
			return err
		}
	}
	if err := c.waitNodeReady(ctx, name, o.Wait); err != nil {
		return fmt.Errorf("node %s not Ready after %s: %w", name, o.Wait, err)
	}
	return nil
}

// imageFor picks the node image: the requested version's, or the donor's.
func (c *Cluster) imageFor(ctx context.Context, donor nodes.Node, version string) (string, error) {
	if version == "" {
		info, err := engine.Inspect(ctx, donor.String())
		if err != nil {
			return "", err
		}
		return info.Config.Image, nil
	}
	if _, err := nodeimage.Lookup(version); err != nil {
		return "", err
	}
	image := nodeimage.NodeImage(version)
	if ok, err := engine.ImageExists(ctx, image); err != nil {
		return "", err
	} else if !ok {
		return "", fmt.Errorf("node image %s not found: run `handover images build %s`", image, version)
	}
	return image, nil
}

var nodeSuffix = regexp.MustCompile(`(\d*)$`)

// nextName follows kind's naming (NAME-worker, NAME-worker2, ...) and never
// reuses a number still present, so a replaced node gets a fresh name.
func (c *Cluster) nextName(role string) (string, error) {
	all, err := c.Nodes()
	if err != nil {
		return "", err
	}
	prefix := c.Name + "-" + role
	highest := 0
	var used []int
	for _, n := range all {
		s := n.String()
		if !strings.HasPrefix(s, prefix) {
			continue
		}
		num := 1
		if m := nodeSuffix.FindString(strings.TrimPrefix(s, prefix)); m != "" {
			num, _ = strconv.Atoi(m)
		}
		used = append(used, num)
	}
	sort.Ints(used)
	if len(used) > 0 {
		highest = used[len(used)-1]
	}
	if highest == 0 {
		return prefix, nil
	}
	return prefix + strconv.Itoa(highest+1), nil
}

// startContainer runs a node container with the same settings kind uses and
// donor's extra mounts, as the cluster's hooks make them the node's own.
func (c *Cluster) startContainer(ctx context.Context, donor nodes.Node, name, role, image string) error {
	donorBinds, err := extraBinds(ctx, donor)
	if err != nil {
		return err
	}
	spec, err := c.nodeSpec(ctx, name, role, image, donorBinds)
	if err != nil {
		return err
	}
	for try := 0; ; try++ {
		if spec.IPv4, err = freshAddress(ctx); err != nil {
			return err
		}
		err = engine.Run(ctx, spec)
		if noChosenAddresses(err) {
			// A network whose subnet Docker picked (kind's own) takes no
			// address from its client: its allocator chooses.
			spec.IPv4 = ""
			err = engine.Run(ctx, spec)
		}
		if !addressTaken(err) || try == 4 {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("starting node container: %w", err)
	}
	c.forget()
	return nil
}

// nodeSpec is a joining node's container, given its donor's extra binds.
func (c *Cluster) nodeSpec(ctx context.Context, name, role, image string, donorBinds []string) (engine.RunSpec, error) {
	spec := engine.RunSpec{Name: name, Hostname: name, Image: image, Network: dockerNetwork,
		Labels:     Labels(c.Name, role),
		Privileged: true, Tty: true, RestartRetries: 1,
		Tmpfs: []string{"/tmp", "/run"}, Volumes: []string{"/var"},
		Binds: []string{"/lib/modules:/lib/modules:ro"}}
	// `docker run -e NAME` passes NAME only when it is set here.
	if v, ok := os.LookupEnv("KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER"); ok {
		spec.Env = append(spec.Env, "KIND_EXPERIMENTAL_CONTAINERD_SNAPSHOTTER="+v)
	}
	if role == RoleControlPlane {
		spec.Env = append(spec.Env, "KUBECONFIG=/etc/kubernetes/admin.conf")
	}
	binds, err := c.nodeBinds(ctx, name, role, donorBinds)
	if err != nil {
		return engine.RunSpec{}, err
	}
	spec.Binds = append(spec.Binds, binds...)
	return spec, nil
}

// waitRuntime waits for the node's systemd to have started containerd: for
// its socket, looked for through the node's root from the host (no process
// per poll), or asked of systemd in the node where that root is out of reach.
func waitRuntime(ctx context.Context, n nodes.Node) error {
	started := func(ctx context.Context) (bool, error) {
		out, _ := run(ctx, n, "systemctl", "is-active", "containerd")
		return out == "active", nil
	}
	if info, err := engine.Inspect(ctx, n.String()); err == nil && info.State != nil && info.State.Pid != 0 {
		pid := info.State.Pid
		if _, err := nodeaccess.Exists(pid, "/"); err == nil {
			started = func(context.Context) (bool, error) {
				ok, _ := nodeaccess.Exists(pid, "/run/containerd/containerd.sock")
				return ok, nil
			}
		}
	}
	limit := waits.Of(ctx, WaitNodeContainer)
	err := wait.PollUntilContextTimeout(ctx, 300*time.Millisecond, limit, true, started)
	if err != nil {
		return fmt.Errorf("containerd did not start in node %s within %s (see `docker logs %s`): %w", n, limit, n, err)
	}
	return nil
}

// extraBinds are a node's bind mounts beyond the ones every kind node has.
func extraBinds(ctx context.Context, n nodes.Node) ([]string, error) {
	info, err := engine.Inspect(ctx, n.String())
	if err != nil {
		return nil, fmt.Errorf("reading mounts of %s: %w", n, err)
	}
	var out []string
	for _, l := range info.HostConfig.Binds {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "/lib/modules:") {
			out = append(out, l)
		}
	}
	return out, nil
}

// useLocalAPIServer rewrites the kubelet's kubeconfig to the node's own API
// server and restarts the kubelet.
func (c *Cluster) useLocalAPIServer(ctx context.Context, n nodes.Node) error {
	ip, _, err := n.IP()
	if err != nil {
		return err
	}
	conf, err := c.ReadFile(ctx, n.String(), "/etc/kubernetes/kubelet.conf")
	if err != nil {
		return err
	}
	local := regexp.MustCompile(`(?m)^(\s*server:) https://\S+$`).ReplaceAllString(conf, "$1 https://"+net.JoinHostPort(ip, "6443"))
	if err := c.writeFile(ctx, n, "/etc/kubernetes/kubelet.conf", local); err != nil {
		return err
	}
	_, err = run(ctx, n, "systemctl", "restart", "kubelet")
	return err
}
