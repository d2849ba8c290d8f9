package scale

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/handover-sh/handover/clusters/engine"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudserver"
)

// Simulated nodes carry kwok's annotation (kwok manages those only), a
// label that keeps DaemonSets off them and a taint that keeps ordinary
// pods off them.
const (
	KwokAnnotation = "kwok.x-k8s.io/node"
	SimulatedLabel = "handover.sh/simulated"
	kwokTaint      = "kwok.x-k8s.io/node"
)

// kwokLease is how long a simulated node's lease lasts: kwok renews it at a
// quarter of that, as a kubelet renews its own every 10 s.
const kwokLease = "40"

// kwokContainer names the kwok controller of a cluster. It carries
// simcloud's cluster label, so deleting the cluster removes it with the
// load balancers.
func kwokContainer(cluster string) string { return cluster + "-kwok" }

// startKwok runs kwok on the kind network against the cluster's API (its
// balancer, which outlives every control plane a procedure replaces),
// managing the nodes with kwok's annotation.
func startKwok(ctx context.Context, cluster, stateDir, kubeconfig string) error {
	path := filepath.Join(stateDir, "kwok.kubeconfig")
	if err := privatefs.MkdirAll(stateDir); err != nil {
		return fmt.Errorf("kwok's state directory: %w", err)
	}
	if err := privatefs.WriteFile(path, []byte(kubeconfig)); err != nil {
		return fmt.Errorf("writing kwok's kubeconfig: %w", err)
	}
	name := kwokContainer(cluster)
	if err := engine.Remove(ctx, name); err != nil {
		return fmt.Errorf("removing an earlier kwok: %w", err)
	}
	spec := engine.RunSpec{Name: name, Image: nodeimage.KwokImage, Network: "kind", RestartRetries: 5,
		Labels: map[string]string{cloudserver.ClusterLabel: cluster},
		Binds:  []string{path + ":/etc/kwok/kubeconfig:ro"},
		Env:    []string{"HOME=/tmp"}, // kwok looks for ~/.kwok; the image has no home
		Cmd: []string{"--kubeconfig=/etc/kwok/kubeconfig", "--manage-nodes-with-annotation-selector=" + KwokAnnotation + "=fake",
			"--node-lease-duration-seconds=" + kwokLease}}
	if err := engine.Run(ctx, spec); err != nil {
		return fmt.Errorf("starting kwok: %w", err)
	}
	return nil
}

// CollectLogs writes kwok's output into dir/kwok.log, if it ran.
func CollectLogs(ctx context.Context, cluster, dir string) error {
	if _, err := engine.Inspect(ctx, kwokContainer(cluster)); engine.IsNotFound(err) {
		return nil // no fleet, or it never started
	}
	if err := privatefs.MkdirAllMode(dir, 0o755); err != nil {
		return err
	}
	f, err := privatefs.Rewrite(filepath.Join(dir, "kwok.log"))
	if err != nil {
		return err
	}
	defer f.Close()
	return engine.Logs(ctx, kwokContainer(cluster), f)
}
