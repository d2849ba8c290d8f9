package main

import (
	"github.com/spf13/cobra"
	"sigs.k8s.io/kind/pkg/cmd"
	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/internal/version"
)

// globals carries flags shared by every subcommand.
type globals struct {
	verbosity int32
	logger    log.Logger
	// ran: a command's RunE started, so cobra accepted the command line.
	ran bool
}

func newRootCommand() *cobra.Command {
	root, _ := newRoot()
	return root
}

// newRoot is the root command and the globals its commands share.
func newRoot() (*cobra.Command, *globals) {
	g := &globals{}
	root := &cobra.Command{
		Use:   "handover",
		Short: "Rehearse the in-tree to out-of-tree cloud-controller migration on kind",
		Long: `handover builds offline kind node images, creates multi-control-plane kind
clusters on a simulated cloud, and rehearses the Leader Migration of the cloud
controllers from kube-controller-manager to cloud-controller-manager.

Start with:
  handover rehearse         # a migration end to end, with its verdict
  handover host prepare     # make Docker usable on this machine
  handover images build     # build node images offline (cached)
  handover cluster create   # a 3 control-plane, 2 worker cluster

Exit codes:` + exitCodesHelp(),
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version, as kind's root has it; `handover version` says more.
		Version: version.Get().String(),
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			g.logger = newLogger(g.verbosity)
			quieten(c)
			if err := checkDurations(c); err != nil {
				return exitcode.AsBadInput(err)
			}
			if usesCache[topLevel(c).Name()] {
				return exitcode.AsInfrastructure(nodeimage.CheckCacheDir())
			}
			return nil
		},
	}
	root.PersistentFlags().Int32VarP(&g.verbosity, "verbosity", "v", 0, "log verbosity (0 = progress only)")
	root.AddCommand(newHostCommand(g), newImagesCommand(g), newClusterCommand(g), newSimcloudCommand(g),
		newPlanCommand(g), newMigrateCommand(g), newLintCommand(g), newDescribeCommand(), newReportCommand(g), newRehearseCommand(g), newObserveCommand(g), newMatrixCommand(g),
		newVersionCommand())
	documentDurations(root)
	addFormerNames(root)
	noteRuns(root, g)
	return root, g
}

// usesCache names the commands that read or write the cache (images,
// clusters' state, the host's recorded settings): before any of them runs,
// the cache must be a private directory.
var usesCache = map[string]bool{
	"images": true, "cluster": true, "simcloud": true, "plan": true, "migrate": true,
	"lint": true, "rehearse": true, "matrix": true,
}

// topLevel is c's ancestor just below the root (c itself at the top).
func topLevel(c *cobra.Command) *cobra.Command {
	for c.HasParent() && c.Parent().HasParent() {
		c = c.Parent()
	}
	return c
}

func newLogger(v int32) log.Logger {
	l := cmd.NewLogger()
	if s, ok := l.(interface{ SetVerbosity(log.Level) }); ok {
		s.SetVerbosity(log.Level(v))
	}
	return l
}
