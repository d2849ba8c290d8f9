package observe

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/handover-sh/handover/clusters/managers"
	"github.com/handover-sh/handover/internal/cmdline"
)

// Found is a controller manager found from the API: which one, on which
// node, how it listens, and where this process can reach it (nil with the
// reason, and what would reach it, when it cannot).
type Found struct {
	Endpoint           // the manager, and its node as the instance
	Pod         string // namespace/name
	Port, Bind  string // --secure-port and --bind-address as it runs
	HostNetwork bool
	URL         *url.URL
	Why         string
}

// Discover finds the managers among kube-system's pods: static pods by
// their component label (kubeadm's, RKE2's), a chart's pods by the binary
// they run, their container's name or their app label
// (aws-cloud-controller-manager, cloud-controller-manager).
// local are this machine's addresses: a manager bound to the loopback on
// the node this process runs on is reachable there.
func Discover(ctx context.Context, c kubernetes.Interface, local []net.IP) ([]Found, error) {
	pods, err := c.CoreV1().Pods(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing the managers' pods in kube-system: %w", err)
	}
	nodes := map[string]string{} // node: its InternalIP
	var out []Found
	for i := range pods.Items {
		p := &pods.Items[i]
		m, args := managerOf(p)
		if m == "" || p.Spec.NodeName == "" {
			continue
		}
		if _, ok := nodes[p.Spec.NodeName]; !ok {
			nodes[p.Spec.NodeName] = internalIP(ctx, c, p.Spec.NodeName)
		}
		f := Found{Endpoint: Endpoint{Manager: m, Instance: p.Spec.NodeName}, Pod: p.Namespace + "/" + p.Name,
			Port: managers.Ports[m], Bind: "0.0.0.0", HostNetwork: p.Spec.HostNetwork}
		if v, ok := flagValue(args, "secure-port"); ok {
			f.Port = v
		}
		if v, ok := flagValue(args, "bind-address"); ok {
			f.Bind = v
		}
		f.URL, f.Why = f.reach(nodes[p.Spec.NodeName], p.Status.PodIP, local)
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b Found) int { return strings.Compare(a.Manager+a.Instance, b.Manager+b.Instance) })
	tunnel := firstTunnelPort
	for i := range out {
		if out[i].URL == nil && loopback(out[i].Bind) {
			out[i].Why = out[i].loopbackOnly(tunnel)
			tunnel++
		}
	}
	return out, nil
}

// firstTunnelPort is the local port of the first tunnel Discover suggests;
// each further one takes the next, so the commands can all run at once.
const firstTunnelPort = 30257

// managerOf says which manager a pod runs, with its container's
// arguments, or "" for none.
func managerOf(p *corev1.Pod) (string, []string) {
	m, c := ManagerContainer(p)
	if c == nil {
		return "", nil
	}
	return m, append(slices.Clone(c.Command), c.Args...)
}

// ManagerContainer is the manager a pod runs and the container that runs
// it, or "" and nil for none.
func ManagerContainer(p *corev1.Pod) (string, *corev1.Container) {
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		// What names it: the executable, else (a chart that passes only
		// args to its image's entrypoint) the container or the app label.
		names := []string{c.Name, p.Labels["component"], p.Labels["k8s-app"], p.Labels["app.kubernetes.io/name"], p.Labels["app"]}
		if len(c.Command) > 0 {
			names = append(names, c.Command[0])
		}
		for _, m := range managers.Names() {
			if slices.ContainsFunc(names, func(n string) bool { return n != "" && runs(n, m) }) {
				return m, c
			}
		}
	}
	return "", nil
}

// runs: exe is the path of manager m's binary, or of a provider's build of
// it (aws-cloud-controller-manager).
func runs(exe, m string) bool {
	b := path.Base(exe)
	return b == m || strings.HasSuffix(b, "-"+m)
}

// flagValue is --name's value, given as --name=value or --name value.
func flagValue(args []string, name string) (string, bool) {
	return cmdline.Value(cmdline.Long(args), name)
}

// internalIP is a node's first InternalIP, "" when it has none or cannot
// be read.
func internalIP(ctx context.Context, c kubernetes.Interface, node string) string {
	n, err := c.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
	if err != nil {
		return ""
	}
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return ""
}

// reach is where this process reaches the manager, or why it cannot and
// what would.
func (f Found) reach(nodeIP, podIP string, local []net.IP) (*url.URL, string) {
	host := podIP
	if f.HostNetwork {
		host = nodeIP
	}
	onThisNode := nodeIP != "" && slices.ContainsFunc(local, func(ip net.IP) bool { return ip.Equal(net.ParseIP(nodeIP)) })
	switch {
	case loopback(f.Bind) && onThisNode && f.HostNetwork:
		host = "127.0.0.1"
	case loopback(f.Bind):
		return nil, "" // Discover says what would reach it
	case host == "":
		return nil, fmt.Sprintf("neither node %s's InternalIP nor the pod's IP is known yet", f.Instance)
	}
	return &url.URL{Scheme: "https", Host: net.JoinHostPort(host, f.Port)}, ""
}

// loopbackOnly says why a manager bound to the loopback cannot be reached
// from here, and the commands that would reach it: handover observe on its
// node, or a tunnel from local port to it.
func (f Found) loopbackOnly(local int) string {
	return fmt.Sprintf("it listens on %s:%s on node %s only (--bind-address), which nothing off that node reaches. Run handover observe on %s itself, where it is found and sampled, or tunnel to it: ssh -N -L %d:127.0.0.1:%s %s, and add --manager %s=https://127.0.0.1:%d",
		f.Bind, f.Port, f.Instance, f.Instance, local, f.Port, f.Instance, shortName(f.Endpoint), local)
}

// loopback: an address only the node itself reaches.
func loopback(bind string) bool {
	if bind == "localhost" {
		return true
	}
	ip := net.ParseIP(bind)
	return ip != nil && ip.IsLoopback()
}

// String says how the manager is observed, or why it is not.
func (f Found) String() string {
	if f.URL == nil {
		return fmt.Sprintf("%s on %s (pod %s): not observed: %s", f.Manager, f.Instance, f.Pod, f.Why)
	}
	return fmt.Sprintf("%s on %s (pod %s): sampled at %s", f.Manager, f.Instance, f.Pod, f.URL)
}

// Reachable are the found managers this process can sample, as --manager
// would name them.
func Reachable(found []Found) []ManagerURL {
	var out []ManagerURL
	for _, f := range found {
		if f.URL != nil {
			out = append(out, ManagerURL{Endpoint: f.Endpoint, URL: f.URL})
		}
	}
	return out
}

// LocalAddresses are this machine's interface addresses.
func LocalAddresses() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			out = append(out, n.IP)
		}
	}
	return out
}
