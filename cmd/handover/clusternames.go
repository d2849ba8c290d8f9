package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// byName classes a cluster or node name given wrong as bad input: one no
// cluster or node has, or one a new cluster cannot take. Other errors keep
// their class.
func byName(err error) error {
	return exitcode.ByKind(exitcode.BadInput, err, kindcluster.ErrNoCluster, kindcluster.ErrClusterExists, kindcluster.ErrNoNode)
}

// openCluster opens the cluster --name names: none of that name is the
// user's input, one that cannot be looked at the machine's.
func openCluster(name string, logger log.Logger) (*kindcluster.Cluster, error) {
	c, err := cloudcluster.Open(name, logger)
	return c, exitcode.AsInfrastructure(byName(err))
}

// cloudClient is the admin client of the simulated cloud of the cluster
// --name names; a cluster without one (or none of that name) is the
// user's input.
func cloudClient(name string) (*api.Client, error) {
	c, err := cloudcluster.ClientIfAny(name, "handover")
	if err != nil {
		return nil, exitcode.AsInfrastructure(err)
	}
	if c == nil {
		return nil, exitcode.AsBadInput(fmt.Errorf("cluster %q has no simulated cloud: `handover cluster list` names the clusters there are, "+
			"`handover cluster create --name %s --cloud in-tree` makes one with a cloud", name, name))
	}
	return c, nil
}

func newClusterList(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the kind clusters on this machine",
		Long: `list prints the name of every kind cluster on this machine, one a line, as
` + "`kind get clusters`" + ` does: the names --name takes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			names, err := kindcluster.List()
			if err != nil {
				return exitcode.AsInfrastructure(err)
			}
			if len(names) == 0 {
				g.logger.V(0).Infof("No kind clusters found.")
			}
			for _, n := range names {
				fmt.Fprintln(cmd.OutOrStdout(), n)
			}
			return nil
		},
	}
}
