package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/internal/boundedfile"
	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/scale"
)

func newClusterCommand(g *globals) *cobra.Command {
	c := &cobra.Command{Use: "cluster", Short: "Create, change and delete kind clusters"}
	c.AddCommand(newClusterCreate(g), newClusterList(g), newClusterDelete(g), newClusterPrune(g), newClusterAddNode(g), newClusterRemoveNode(g), newClusterKubeconfig(g))
	return c
}

func newClusterPrune(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "prune",
		Short: "Remove what runs of handover that died left behind",
		Long: `prune removes the clusters of handover runs that ended without cleaning up
(killed with SIGKILL, a CI runner's cancel, a machine that lost power, or a
failed create whose own cleanup failed): their
node, load-balancer and kwok containers, their simulated cloud's process, and the
kind network and host kernel settings once no cluster is left. A run that makes
a cluster records its pid and start time; a cluster whose recorder no longer
runs is an orphan. Clusters made by ` + "`cluster create`" + ` or kept with --keep are never
touched. ` + "`rehearse`" + ` and ` + "`cluster create`" + ` prune before they start.`,
		Args: cobra.NoArgs,
		RunE: failsAs(exitcode.Infrastructure, func(cmd *cobra.Command, _ []string) error {
			pruned, err := cloudcluster.Prune(cmd.Context(), g.logger)
			if len(pruned) == 0 && err == nil {
				g.logger.V(0).Infof("Nothing to prune: no cluster of a run that died.")
			}
			return err
		}),
	}
}

// createFlags are cluster create's flags.
type createFlags struct {
	t                        topology.Topology
	configPath, kubeconfig   string
	wait                     time.Duration
	keep                     bool
	cloud, ccmForm, provider string
}

// ccmForms are how cluster create --cloud external runs the
// cloud-controller-manager.
var ccmForms = []string{cloudcluster.DaemonSet, cloudcluster.Deployment}

func newClusterCreate(g *globals) *cobra.Command {
	f := &createFlags{t: topology.Default()}
	cmd := &cobra.Command{
		Use:   "create",
		Short: "Create a multi-control-plane kind cluster from locally built node images",
		Long: `create makes a kind cluster whose control planes sit behind one stable
endpoint (kind's balancer, served by handover's stand-in), and waits until every
node is Ready and every kube-system pod runs. The shape comes from flags or from
a topology file (--config); giving both is an error. Build the node image first
with ` + "`handover images build`" + `.

Topology file fields: name, kubernetes, controlPlanes, workers, podSubnet,
serviceSubnet. --cloud in-tree runs a simulated cloud for the cluster and the
real in-tree cloud loops of kube-controller-manager against it (` + strings.Join(inTreeVersions(), ", ") + `);
--cloud external runs the upstream cloud-controller-manager instead. The
kubeconfig is merged where kind writes it ($KUBECONFIG or ~/.kube/config,
context kind-NAME) unless --kubeconfig is given.`,
		Args: cobra.NoArgs,
		RunE: failsAs(exitcode.Infrastructure, func(cmd *cobra.Command, _ []string) error {
			t, err := f.input(cmd)
			if err != nil {
				return exitcode.AsBadInput(err)
			}
			self, err := os.Executable()
			if err != nil {
				return err
			}
			if _, err := cloudcluster.Prune(cmd.Context(), g.logger); err != nil {
				return err
			}
			start := time.Now()
			g.logger.V(0).Infof("Creating cluster %q: %d control planes, %d workers, Kubernetes %s ...", t.Name, t.ControlPlanes, t.Workers, t.Kubernetes)
			if _, err := cloudcluster.Create(cmd.Context(), t, cloudcluster.Mode(f.cloud), f.ccmForm, kindcluster.CreateOptions{Logger: g.logger,
				KubeconfigPath: f.kubeconfig, Wait: f.wait, Retain: f.keep}, self, cloudcluster.WithProvider(f.provider)); err != nil {
				return byName(err)
			}
			// Made to outlive this command: no longer claimed (a kill
			// before this line leaves an orphan the next run removes).
			if err := cloudcluster.Release(t.Name); err != nil {
				return err
			}
			g.logger.V(0).Infof("Cluster %q ready in %s. Try: kubectl --context kind-%s get nodes", t.Name, time.Since(start).Round(time.Second), t.Name)
			return nil
		}),
	}
	fs := cmd.Flags()
	fs.StringVar(&f.t.Name, "name", f.t.Name, "cluster name")
	fs.IntVar(&f.t.ControlPlanes, "control-planes", f.t.ControlPlanes, "number of control-plane nodes")
	fs.IntVar(&f.t.Workers, "workers", f.t.Workers, "number of worker nodes")
	fs.StringVar(&f.t.Kubernetes, "kubernetes", f.t.Kubernetes, fmt.Sprintf("Kubernetes version %v", nodeimage.Known()))
	fs.StringVar(&f.configPath, "config", "", "topology YAML file (instead of the shape flags)")
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file to write (default: kind's)")
	fs.DurationVar(&f.wait, "wait", 5*time.Minute, "how long to wait for nodes and system pods")
	fs.BoolVar(&f.keep, "keep", false, "keep the nodes of a failed create for debugging (kind's --retain)")
	fs.StringVar(&f.ccmForm, "ccm-form", cloudcluster.DaemonSet, "with --cloud external, how the cloud-controller-manager runs: "+strings.Join(ccmForms, " or "))
	fs.StringVar(&f.provider, "provider", providers.Default().Name(), "whose provider code the kubelets and managers run: "+clusterProvidersHelp())
	fs.StringVar(&f.cloud, "cloud", "none", "simulated cloud mode: none; in-tree (kube-controller-manager runs the cloud loops: "+
		strings.Join(inTreeVersions(), ", ")+"); external (cloud-controller-manager, kubelets --cloud-provider=external)")
	return cmd
}

// inTreeVersions are the versions whose kube-controller-manager still has
// the cloud loops --cloud in-tree runs.
func inTreeVersions() []string {
	var out []string
	for _, v := range nodeimage.Known() {
		if r, err := nodeimage.Lookup(v); err == nil && r.InTreeCloud {
			out = append(out, v)
		}
	}
	return out
}

// input is the topology create makes, from the flags or the file,
// refused before anything changes when no procedure works on it, this
// machine cannot hold it or the cloud mode or provider cannot run it.
func (f *createFlags) input(cmd *cobra.Command) (topology.Topology, error) {
	t := f.t
	if !slices.Contains(ccmForms, f.ccmForm) {
		return t, fmt.Errorf("--ccm-form %q: use %s", f.ccmForm, strings.Join(ccmForms, " or "))
	}
	if configPath := f.configPath; configPath != "" {
		for _, f := range []string{"name", "control-planes", "workers", "kubernetes"} {
			if cmd.Flags().Changed(f) {
				return t, fmt.Errorf("--%s and --config both set the topology: use one", f)
			}
		}
		raw, err := boundedfile.Read(configPath, boundedfile.ConfigLimit)
		if err != nil {
			return t, fmt.Errorf("reading topology: %w", err)
		}
		if t, err = topology.Parse(raw, configPath); err != nil {
			return t, err
		}
	}
	if err := t.Validate(); err != nil {
		return t, err
	}
	if err := clusterFits(t); err != nil {
		return t, err
	}
	if err := cloudcluster.Validate(cloudcluster.Mode(f.cloud), t); err != nil {
		return t, err
	}
	if !slices.Contains(clusterProviders(), f.provider) {
		return t, fmt.Errorf("--provider %q: use %s", f.provider, strings.Join(clusterProviders(), " or "))
	}
	return t, nil
}

// clusterProviders are the providers whose own code a cluster can run
// (those with a cloudcluster.Cloud), the default first.
func clusterProviders() []string {
	names := []string{providers.Default().Name()}
	for _, p := range providers.All() {
		if _, ok := providers.As[cloudcluster.Cloud](p); ok && !providers.IsDefault(p.Name()) {
			names = append(names, p.Name())
		}
	}
	return names
}

// clusterProvidersHelp names each, with whose code it runs.
func clusterProvidersHelp() string {
	var each []string
	for _, name := range clusterProviders() {
		p, _ := providers.Lookup(name)
		each = append(each, name+" ("+p.Runs().String()+runsAgainst[p.Runs()]+")")
	}
	return strings.Join(each, " or ")
}

// runsAgainst is what a provider's code runs against, where it says more
// than whose code it is.
var runsAgainst = map[providers.Runs]string{
	providers.OwnCode:  ", against the simulated cloud's face of its API",
	providers.Imitated: ": the simulated cloud-controller-manager behaving as the provider's",
}

func newClusterDelete(g *globals) *cobra.Command {
	var name, kubeconfig string
	cmd := &cobra.Command{
		Use:   "delete",
		Short: "Delete a cluster and everything it made on this host",
		Long: `delete removes the cluster's node and balancer containers with their volumes,
its kubeconfig entry, the kind Docker network once no cluster uses it, and
restores the host kernel settings kubelets change once no cluster is left. It
also cleans up after a failed or interrupted create.`,
		Args: cobra.NoArgs,
		RunE: failsAs(exitcode.Infrastructure, func(cmd *cobra.Command, _ []string) error {
			g.logger.V(0).Infof("Deleting cluster %q ...", name)
			return cloudcluster.Delete(cmd.Context(), name, kubeconfig, g.logger)
		}),
	}
	cmd.Flags().StringVar(&name, "name", topology.DefaultName, "cluster name")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file to clean (default: kind's)")
	return cmd
}

func newClusterAddNode(g *globals) *cobra.Command {
	var name, role, version string
	cmd := &cobra.Command{
		Use:   "add-node",
		Short: "Join a new control-plane or worker node to a live cluster",
		Long: `add-node starts a node container like kind's, joins it with kubeadm (a control
plane gets the cluster's certificates and a stacked etcd member), adds it to the
control-plane balancer once its API server is healthy, and waits until it is
Ready. It prints the new node's name.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if role != kindcluster.RoleControlPlane && role != kindcluster.RoleWorker {
				return exitcode.AsBadInput(fmt.Errorf("--role %q: use control-plane or worker", role))
			}
			c, err := openCluster(name, g.logger)
			if err != nil {
				return err
			}
			node, err := c.AddNode(cmd.Context(), kindcluster.AddNodeOptions{Role: role, Kubernetes: version})
			if err != nil {
				return exitcode.AsInfrastructure(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), node)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", topology.DefaultName, "cluster name")
	cmd.Flags().StringVar(&role, "role", kindcluster.RoleWorker, "control-plane or worker")
	cmd.Flags().StringVar(&version, "kubernetes", "", "node image version (default: the cluster's)")
	return cmd
}

func newClusterRemoveNode(g *globals) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "remove-node NODE",
		Short: "Drain and remove a node from a live cluster",
		Long: `remove-node drains the node, and for a control plane first takes it out of the
balancer, stops its API server gracefully and removes its etcd member, then
deletes the Node object and the container.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := openCluster(name, g.logger)
			if err != nil {
				return err
			}
			return exitcode.AsInfrastructure(byName(c.RemoveNode(cmd.Context(), args[0])))
		},
	}
	cmd.Flags().StringVar(&name, "name", topology.DefaultName, "cluster name")
	return cmd
}

func newClusterKubeconfig(g *globals) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "kubeconfig",
		Short: "Print an admin kubeconfig for the cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := openCluster(name, g.logger)
			if err != nil {
				return err
			}
			kc, err := c.KubeconfigContext(cmd.Context())
			if err != nil {
				return exitcode.AsInfrastructure(err)
			}
			fmt.Fprint(cmd.OutOrStdout(), kc)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", topology.DefaultName, "cluster name")
	return cmd
}

// clusterFits refuses a shape no procedure works on or this machine cannot
// hold, before any container is made.
func clusterFits(t topology.Topology) error {
	if err := migrate.ValidControlPlanes(t.ControlPlanes); err != nil {
		return err
	}
	m, err := scale.ThisMachine()
	if err != nil {
		return err
	}
	return rehearsal.Nodes{ControlPlanes: t.ControlPlanes, Workers: t.Workers}.Fit(m)
}
