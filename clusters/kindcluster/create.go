package kindcluster

import (
	"context"
	"errors"
	"fmt"
	"time"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	"sigs.k8s.io/kind/pkg/cluster"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/engine"
	"github.com/handover-sh/handover/clusters/host"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/waits"
)

// CreateOptions tune Create. Zero values get defaults.
type CreateOptions struct {
	Logger log.Logger
	// KubeconfigPath is where the kubeconfig is merged ("" = kind's default:
	// $KUBECONFIG or ~/.kube/config, context kind-NAME).
	KubeconfigPath string
	// Wait bounds how long Create waits for every node and system pod.
	Wait time.Duration
	// Retain keeps the nodes of a failed create for debugging.
	Retain bool
	// Configure adjusts kind's configuration before creation (cloud modes
	// add kubeadm patches and mounts, and write the files mounted); an
	// error ends the create before kind runs.
	Configure func(*v1alpha4.Cluster) error
	// AfterCreate runs once kind is done and before the health wait (cloud
	// modes install their pod network and managers there). When it is set,
	// kind does not wait for control-plane readiness itself.
	AfterCreate func(ctx context.Context, c *Cluster) error
}

// Create makes an HA kind cluster of the given shape and waits until every
// node is Ready and every kube-system pod runs. On failure or interruption
// (ctx cancelled) it deletes what it made, unless Retain is set; when that
// deletion fails too, the error says so (LeftBehind).
func Create(ctx context.Context, t topology.Topology, o CreateOptions) (*Cluster, error) {
	if o.Wait == 0 {
		o.Wait = waits.Of(ctx, WaitClusterReady)
	}
	if err := Preflight(ctx, t); err != nil {
		return nil, err
	}
	c := newHandle(t.Name, o.Logger)
	if err := recordHostSysctls(c); err != nil {
		return nil, err
	}
	cfg := kindConfig(t)
	if o.Configure != nil {
		if err := o.Configure(cfg); err != nil {
			return nil, fmt.Errorf("creating cluster %q: %w", t.Name, err)
		}
	}
	kindWait := o.Wait
	if o.AfterCreate != nil {
		kindWait = 0
	}
	err := viaPrivateCopy(o.KubeconfigPath, func(kubeconfig string) error {
		return c.runKindCreate(ctx, t, cfg, kindWait, kubeconfig, o)
	})
	if err == nil && o.AfterCreate != nil {
		err = o.AfterCreate(ctx, c)
	}
	if err == nil {
		err = c.WaitHealthy(ctx, o.Wait)
	}
	if err != nil && !o.Retain {
		o.Logger.V(0).Infof("Create failed; deleting cluster %q ...", t.Name)
		err = CleanedUp(err, func() error { return c.Delete(context.Background(), o.KubeconfigPath) })
	}
	if err != nil {
		return nil, fmt.Errorf("creating cluster %q: %w", t.Name, err)
	}
	return c, nil
}

// runKindCreate runs kind's create, which cannot be cancelled: on ctx's
// end it removes the nodes so kind's remaining steps fail fast, and waits
// for it.
func (c *Cluster) runKindCreate(ctx context.Context, t topology.Topology, cfg *v1alpha4.Cluster, wait time.Duration, kubeconfig string, o CreateOptions) error {
	done := make(chan error, 1)
	go func() {
		done <- c.provider.Create(t.Name,
			cluster.CreateWithV1Alpha4Config(cfg),
			cluster.CreateWithNodeImage(nodeimage.NodeImage(t.Kubernetes)),
			cluster.CreateWithWaitForReady(wait),
			cluster.CreateWithKubeconfigPath(kubeconfig),
			cluster.CreateWithRetain(o.Retain),
			cluster.CreateWithDisplayUsage(false),
			cluster.CreateWithDisplaySalutation(false))
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	if !o.Retain {
		o.Logger.V(0).Info("Interrupted: stopping the create and removing its nodes ...")
		_ = c.provider.Delete(t.Name, kubeconfig)
		<-done
	}
	return fmt.Errorf("interrupted: %w", ctx.Err())
}

// Preflight checks everything Create needs before it touches anything.
func Preflight(ctx context.Context, t topology.Topology) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if !host.DockerReachable(ctx) {
		return errors.New("the Docker engine is not reachable: start it, or run `handover host prepare`")
	}
	image := nodeimage.NodeImage(t.Kubernetes)
	if ok, err := engine.ImageExists(ctx, image); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("node image %s not found: run `handover images build %s`", image, t.Kubernetes)
	}
	return CheckFree(t.Name)
}

// kindConfig turns a topology into kind's cluster configuration.
func kindConfig(t topology.Topology) *v1alpha4.Cluster {
	cfg := &v1alpha4.Cluster{
		TypeMeta: v1alpha4.TypeMeta{Kind: "Cluster", APIVersion: "kind.x-k8s.io/v1alpha4"},
		Name:     t.Name,
		Networking: v1alpha4.Networking{
			PodSubnet:     t.PodSubnet,
			ServiceSubnet: t.ServiceSubnet,
		},
	}
	for i := 0; i < t.ControlPlanes; i++ {
		cfg.Nodes = append(cfg.Nodes, v1alpha4.Node{Role: v1alpha4.ControlPlaneRole})
	}
	for i := 0; i < t.Workers; i++ {
		cfg.Nodes = append(cfg.Nodes, v1alpha4.Node{Role: v1alpha4.WorkerRole})
	}
	if r, err := nodeimage.Lookup(t.Kubernetes); err == nil {
		cfg.KubeadmConfigPatches = append(cfg.KubeadmConfigPatches, imageTags(r))
	}
	return cfg
}

// imageTags makes kubeadm run the etcd and CoreDNS the node image carries,
// whatever tags that version's kubeadm would pick itself: one etcd and one
// CoreDNS build then serve every Kubernetes minor.
func imageTags(r nodeimage.Release) string {
	return "kind: ClusterConfiguration\netcd:\n  local:\n    imageTag: " + r.EtcdTag +
		"\ndns:\n  imageTag: v" + r.CoreDNS
}
