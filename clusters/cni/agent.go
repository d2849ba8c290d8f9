package cni

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Agent keeps one node's pod network configured.
type Agent struct {
	Client       kubernetes.Interface
	NodeName     string
	PodNetwork   *net.IPNet // the whole cluster's pod CIDR
	ConfDir      string
	ManageRoutes bool // program routes to other nodes' pod CIDRs
	// Routes computes the routes to program; nil means one per other node
	// (DesiredRoutes). A simulated cloud's route table plugs in here.
	Routes func(nodes []*corev1.Node) ([]Route, error)
	Logf   func(format string, args ...any)
	// unreachable is how many routes the last sync left out.
	unreachable int
}

// Run reconciles on every Node change and every resync period until ctx ends.
func (a *Agent) Run(ctx context.Context, resync time.Duration) error {
	factory := informers.NewSharedInformerFactory(a.Client, resync)
	nodes := factory.Core().V1().Nodes()
	kick := make(chan struct{}, 1)
	notify := func(any) {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	if _, err := nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: notify, DeleteFunc: notify, UpdateFunc: func(_, n any) { notify(n) },
	}); err != nil {
		return err
	}
	factory.Start(ctx.Done())
	factory.WaitForCacheSync(ctx.Done())
	for {
		list, err := nodes.Lister().List(labels.Everything())
		if err == nil {
			err = a.Reconcile(list)
		}
		if err != nil {
			a.Logf("reconcile: %v", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-kick:
		case <-time.After(resync):
		}
	}
}

// Reconcile applies the configuration the current Node list asks for.
func (a *Agent) Reconcile(nodes []*corev1.Node) error {
	if err := enableForwarding(); err != nil {
		return err
	}
	if err := EnsureMasquerade(a.PodNetwork); err != nil {
		return err
	}
	if a.ManageRoutes {
		want := DesiredRoutes(a.NodeName, nodes)
		if a.Routes != nil {
			var err error
			if want, err = a.Routes(nodes); err != nil {
				return err
			}
		}
		unreachable, err := SyncRoutes(want)
		if err != nil {
			return err
		}
		if unreachable != a.unreachable && a.Logf != nil {
			a.Logf("%d routes left out: their next hops are on no network of this node (simulated nodes, or a node cut off)", unreachable)
		}
		a.unreachable = unreachable
	}
	for _, n := range nodes {
		if n.Name == a.NodeName {
			return a.writeConf(n.Spec.PodCIDR)
		}
	}
	return fmt.Errorf("node %s not found", a.NodeName)
}

// writeConf writes the CNI configuration once the node has a pod CIDR; the
// kubelet reports the node NotReady until then.
func (a *Agent) writeConf(podCIDR string) error {
	if podCIDR == "" {
		return nil
	}
	want := Conflist(podCIDR)
	path := filepath.Join(a.ConfDir, ConfFile)
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, want) {
		return nil
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, want, 0o644); err != nil {
		return err
	}
	a.Logf("wrote %s for pod CIDR %s", path, podCIDR)
	return os.Rename(tmp, path)
}

// enableForwarding makes the node route pod traffic, and ignores ICMP
// redirects so that only the route table (the agent's or the cloud's)
// decides where pod traffic goes.
func enableForwarding() error {
	for path, value := range map[string]string{
		"/proc/sys/net/ipv4/ip_forward":                    "1",
		"/proc/sys/net/ipv4/conf/all/accept_redirects":     "0",
		"/proc/sys/net/ipv4/conf/default/accept_redirects": "0",
		"/proc/sys/net/ipv4/conf/eth0/accept_redirects":    "0",
	} {
		if err := os.WriteFile(path, []byte(value), 0o644); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}
