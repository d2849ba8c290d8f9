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
	c.AddCommand(newClusterCreate(g), newClusterDelete(g), newClusterPrune(g), newClusterAddNode(g), newClusterRemoveNode(g), newClusterKubeconfig(g))
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

func newClusterCreate(g *globals) *cobra.Command {
	t := topology.Default()
	var configPath, kubeconfig string
	var wait time.Duration
	var retain bool
	var cloud, ccm, provider string
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
real in-tree cloud loops of kube-controller-manager v1.30 against it; --cloud
external runs the upstream cloud-controller-manager instead. The kubeconfig is merged where kind writes it ($KUBECONFIG or
~/.kube/config, context kind-NAME) unless --kubeconfig is given.`,
		Args: cobra.NoArgs,
		RunE: failsAs(exitcode.Infrastructure, func(cmd *cobra.Command, _ []string) error {
			t, err := createInput(cmd, configPath, t, cloud, provider)
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
			if _, err := cloudcluster.Create(cmd.Context(), t, cloudcluster.Mode(cloud), ccm, kindcluster.CreateOptions{Logger: g.logger,
				KubeconfigPath: kubeconfig, Wait: wait, Retain: retain}, self, cloudcluster.WithProvider(provider)); err != nil {
				return err
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
	f := cmd.Flags()
	f.StringVar(&t.Name, "name", t.Name, "cluster name")
	f.IntVar(&t.ControlPlanes, "control-planes", t.ControlPlanes, "number of control-plane nodes")
	f.IntVar(&t.Workers, "workers", t.Workers, "number of worker nodes")
	f.StringVar(&t.Kubernetes, "kubernetes", t.Kubernetes, fmt.Sprintf("Kubernetes version %v", nodeimage.Known()))
	f.StringVar(&configPath, "config", "", "topology YAML file (instead of the shape flags)")
	f.StringVar(&kubeconfig, "kubeconfig", "", "kubeconfig file to write (default: kind's)")
	f.DurationVar(&wait, "wait", 5*time.Minute, "how long to wait for nodes and system pods")
	f.BoolVar(&retain, "retain", false, "keep the nodes of a failed create for debugging")
	f.StringVar(&ccm, "ccm", cloudcluster.DaemonSet, "with --cloud external, run the cloud-controller-manager as a daemonset or a deployment")
	f.StringVar(&provider, "provider", providers.Default().Name(), "whose provider code the kubelets and managers run: "+clusterProvidersHelp())
	f.StringVar(&cloud, "cloud", "none", "simulated cloud mode: none; in-tree (kube-controller-manager runs the cloud loops, v1.30); external (cloud-controller-manager DaemonSet, kubelets --cloud-provider=external)")
	return cmd
}

// createInput is the topology create makes, from the flags or the file,
// refused before anything changes when no procedure works on it, this
// machine cannot hold it or the cloud mode or provider cannot run it.
func createInput(cmd *cobra.Command, configPath string, t topology.Topology, cloud, provider string) (topology.Topology, error) {
	if configPath != "" {
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
	if err := cloudcluster.Validate(cloudcluster.Mode(cloud), t); err != nil {
		return t, err
	}
	if !slices.Contains(clusterProviders(), provider) {
		return t, fmt.Errorf("--provider %q: use %s", provider, strings.Join(clusterProviders(), " or "))
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
	cmd.Flags().StringVar(&name, "name", "handover", "cluster name")
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
			c, err := cloudcluster.Open(name, g.logger)
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
	cmd.Flags().StringVar(&name, "name", "handover", "cluster name")
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
			c, err := cloudcluster.Open(name, g.logger)
			if err != nil {
				return err
			}
			return exitcode.AsInfrastructure(c.RemoveNode(cmd.Context(), args[0]))
		},
	}
	cmd.Flags().StringVar(&name, "name", "handover", "cluster name")
	return cmd
}

func newClusterKubeconfig(g *globals) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "kubeconfig",
		Short: "Print an admin kubeconfig for the cluster",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := cloudcluster.Open(name, g.logger)
			if err != nil {
				return err
			}
			kc, err := c.Kubeconfig()
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), kc)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "handover", "cluster name")
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
