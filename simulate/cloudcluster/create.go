package cloudcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	kexec "sigs.k8s.io/kind/pkg/exec"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/cni"
	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudserver"
)

// Validate checks that a mode fits the cluster's Kubernetes version.
func Validate(mode Mode, t topology.Topology) error {
	switch mode {
	case None:
		return nil
	case InTree:
		r, err := nodeimage.Lookup(t.Kubernetes)
		if err != nil {
			return err
		}
		if !r.InTreeCloud {
			return fmt.Errorf("--cloud in-tree needs a kube-controller-manager that still has cloud loops: use --kubernetes v1.30.14 (%s has none)", t.Kubernetes)
		}
		return nil
	case External:
		_, err := nodeimage.Lookup(t.Kubernetes)
		return err
	}
	return fmt.Errorf("--cloud %q: use none, in-tree or external", mode)
}

// Create makes a cluster in the given cloud mode. self is the handover
// binary, which runs the cluster's simcloud in the background; workload
// (DaemonSet or Deployment) is how an external mode's CCM runs. The new
// cluster is claimed by this process (Claim): the caller releases it once
// the cluster is meant to outlive the process, or deletes it. A failed
// create cleans up after itself and releases the claim, unless that
// cleanup failed too (settleClaim).
func Create(ctx context.Context, t topology.Topology, mode Mode, workload string, o kindcluster.CreateOptions, self string, opts ...Option) (*kindcluster.Cluster, error) {
	if workload != DaemonSet && workload != Deployment {
		return nil, fmt.Errorf("--ccm %q: use %s or %s", workload, DaemonSet, Deployment)
	}
	set := newSettings(opts)
	w, err := wire(set.provider)
	if err != nil {
		return nil, err
	}
	if err := Validate(mode, t); err != nil {
		return nil, err
	}
	in := ClusterInput{Topology: t, Mode: mode, Workload: workload}
	if err := w.cloud.Validate(in); err != nil {
		return nil, err
	}
	if err := kindcluster.Preflight(ctx, t); err != nil {
		return nil, err
	}
	// A kubeconfig that cannot be written is refused before the claim: a
	// cluster claimed with it would be removed through it.
	if p := o.KubeconfigPath; p != "" {
		if err := privatefs.MkdirAll(filepath.Dir(p)); err != nil {
			return nil, exitcode.AsBadInput(fmt.Errorf("kubeconfig %s: %w", p, err))
		}
	}
	if err := Claim(t.Name, commandLine(), o.KubeconfigPath); err != nil {
		return nil, err
	}
	c, err := create(ctx, in, o, self, set, w)
	return c, settleClaim(t.Name, err, o.Retain)
}

// settleClaim ends a failed create's claim on cluster as its cleanup
// allows: one that removed everything, or whose nodes were retained on
// purpose, releases it; one whose cleanup failed keeps it, so that the next
// run's prune, once this process has ended, removes what is left (released,
// nothing would). A create that succeeded stays claimed.
func settleClaim(cluster string, err error, retained bool) error {
	if err == nil {
		return nil
	}
	if retained || !kindcluster.LeftBehind(err) {
		_ = Release(cluster)
		return err
	}
	return fmt.Errorf("%w (cluster %q stays claimed: the next run, or `handover cluster prune`, removes what is left)", err, cluster)
}

// commandLine names the claiming process for people: "handover rehearse".
func commandLine() string {
	return strings.Join(append([]string{filepath.Base(os.Args[0])}, os.Args[1:min(2, len(os.Args))]...), " ")
}

func create(ctx context.Context, in ClusterInput, o kindcluster.CreateOptions, self string, set settings, w wiring) (*kindcluster.Cluster, error) {
	t := in.Topology
	if in.Mode == None {
		return kindcluster.Create(ctx, t, o)
	}
	if _, err := startSimcloud(ctx, self, t.Name, t.PodSubnet, set, w); err != nil {
		return nil, err
	}
	if err := writeAuditPolicy(t.Name); err != nil {
		return nil, cleanedUp(fmt.Errorf("writing the audit policy: %w", err), t.Name)
	}
	o.Configure = func(cfg *v1alpha4.Cluster) error {
		configure(cfg, in, w.cloud)
		if set.noNodeIP {
			cfg.KubeadmConfigPatches = append(cfg.KubeadmConfigPatches, unpinNodeIP()...)
		}
		// Before kind starts a node: a file missing at a mount's host
		// path would be made a directory.
		for _, node := range kindNodeNames(t.Name, cfg.Nodes) {
			if err := w.cloud.NodeJoins(t.Name, node); err != nil {
				return err
			}
		}
		return nil
	}
	o.AfterCreate = func(ctx context.Context, c *kindcluster.Cluster) error {
		return afterCreate(ctx, c, in, set, w.cloud)
	}
	c, err := kindcluster.Create(ctx, t, o)
	if err != nil {
		return nil, cleanedUp(err, t.Name)
	}
	c.Hooks = NodeHooks(t.Name, w.cloud)
	return c, nil
}

// afterCreate gives the new cluster's machines their shape, installs the
// pod network in cloud-routes mode and applies the provider's manifests.
func afterCreate(ctx context.Context, c *kindcluster.Cluster, in ClusterInput, set settings, cloud Cloud) error {
	if set.secondInterfaces {
		if err := attachSecondInterfaces(ctx, c); err != nil {
			return err
		}
	}
	endpoint, err := c.InternalEndpoint()
	if err != nil {
		return err
	}
	t := in.Topology
	if err := c.Apply(ctx, cni.CloudRoutesManifest(nodeimage.CNIImage, t.PodSubnet, endpoint, CloudConfigPath, t.Name)); err != nil {
		return err
	}
	manifests, err := cloud.Manifests(in)
	if err != nil {
		return err
	}
	for _, m := range manifests {
		if err := c.Apply(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// cleanedUp is err, a failed create's, once what the simulated cloud made
// for the cluster is removed; a failure of that removal joins it
// (kindcluster.LeftBehind).
func cleanedUp(err error, cluster string) error {
	return kindcluster.CleanedUp(err, func() error { return cleanup(context.Background(), cluster) })
}

// ProviderName is the simulated cloud provider the managers and kubelets
// are started with.
const ProviderName = "kind"

// Delete deletes the cluster, its load balancers, kwok and its simcloud,
// then the kind network and host settings once nothing uses them, in that
// order (the network goes only when no container is left on it). Every
// step runs even when one before it failed; a cluster fully deleted is no
// longer claimed.
func Delete(ctx context.Context, name, kubeconfig string, logger log.Logger) error {
	err := kindcluster.DeleteNodesByName(name, kubeconfig, logger)
	err = errors.Join(err, cleanup(ctx, name))
	err = errors.Join(err, kindcluster.ReleaseHost(ctx, logger))
	if err != nil {
		return err
	}
	return Release(name)
}

// cleanup removes what the simulated cloud made for a cluster: its
// containers (load balancers, registry, kwok), then the cloud itself, then
// what its provider made on the host.
func cleanup(ctx context.Context, name string) error {
	var err error
	ids, _ := kexec.OutputLines(kexec.CommandContext(ctx, "docker", "ps", "-aq", "--filter", "label="+cloudserver.ClusterLabel+"="+name))
	if len(ids) > 0 {
		if rerr := kexec.CommandContext(ctx, "docker", append([]string{"rm", "-f", "-v"}, ids...)...).Run(); rerr != nil {
			err = fmt.Errorf("removing the load balancers, registry and kwok of %s: %w", name, rerr)
		}
	}
	err = errors.Join(err, removeInterfaceNetworks(ctx, name))
	stopSimcloud(name)
	if _, serr := os.Stat(filepath.Join(StateDir(name), metadataRedirectFile)); serr == nil {
		err = errors.Join(err, UnredirectMetadata(ctx, name))
	}
	return err
}
