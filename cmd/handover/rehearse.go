package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/clusters/kindcluster"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/migrate"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

func newRehearseCommand(g *globals) *cobra.Command {
	var f specFlags
	var workers int
	var out string
	var keep, force bool
	c := &cobra.Command{
		Use:   "rehearse",
		Short: "Rehearse a migration end to end: images, cluster, procedure, observers, checks, reports",
		Long: `rehearse builds the node images it needs (cached), creates a kind cluster on
the simulated cloud with the in-tree provider, runs the procedure while the
observers record everything on one timeline, checks the timeline and writes
junit.xml, summary.md, report.html and timeline.jsonl into --out. Cluster logs
are collected into --out/logs when anything failed. The cluster is deleted
afterwards (also on Ctrl-C) unless --keep.

It exits 0 only when the procedure completed and every check passed. With no
flags it rehearses the upstream task doc on 3 control planes and 2 workers,
v1.30.14 to v1.31.4.`,
		Example: "  handover rehearse\n  handover rehearse --procedure rke2 --flavour azure --out reports/rke2",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, p, err := f.build()
			if err != nil {
				return err
			}
			if err := preflight(g, s, force); err != nil {
				return err
			}
			topo := topology.Default()
			topo.Name, topo.ControlPlanes, topo.Workers, topo.Kubernetes = s.Cluster, s.ControlPlanes, workers, s.From
			if err := topo.Validate(); err != nil {
				return err
			}
			if err := buildImages(cmd.Context(), g, s.From, s.To); err != nil {
				return err
			}
			return rehearse(cmd, g, s, p, topo, out, keep, force)
		},
	}
	f.add(c.Flags())
	c.Flags().Lookup("name").DefValue = "rehearsal"
	f.spec.Cluster = "rehearsal"
	c.Flags().IntVar(&f.spec.ControlPlanes, "control-planes", 3, "control planes (N)")
	c.Flags().IntVar(&workers, "workers", 2, "workers")
	c.Flags().StringVar(&out, "out", "reports", "directory for the timeline, the reports and, on failure, the cluster logs")
	c.Flags().BoolVar(&keep, "keep", false, "keep the cluster afterwards")
	c.Flags().BoolVar(&force, "force", false, "rehearse even when the preflight lint finds errors, and go on when a controller runs in two managers (the checks give the verdict)")
	return c
}

func buildImages(ctx context.Context, g *globals, versions ...string) error {
	wd, _ := os.Getwd()
	source, err := nodeimage.FindSourceDir(wd)
	if err != nil {
		return err
	}
	b, err := nodeimage.NewBuilder(ctx, g.logger, source, nodeimage.DefaultCacheDir())
	if err != nil {
		return err
	}
	_, err = b.Build(ctx, versions)
	return err
}

func rehearse(cmd *cobra.Command, g *globals, s migrate.Spec, p *migrate.Procedure, topo topology.Topology, out string, keep, force bool) (err error) {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	start := time.Now()
	kubeconfig := filepath.Join(out, "kubeconfig")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	g.logger.V(0).Infof("Rehearsal: %s", p.Title)
	cluster, err := cloudcluster.Create(cmd.Context(), topo, cloudcluster.InTree, cloudcluster.DaemonSet,
		kindcluster.CreateOptions{Logger: g.logger, KubeconfigPath: kubeconfig}, self)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			g.logger.V(0).Infof(" • Collecting cluster logs into %s ...", filepath.Join(out, "logs"))
			if lerr := cluster.CollectLogs(filepath.Join(out, "logs")); lerr != nil {
				g.logger.Warnf("collecting logs: %v", lerr)
			}
		}
		if !keep {
			// A fresh context: the run's may be the one Ctrl-C cancelled.
			_ = cloudcluster.Delete(context.Background(), topo.Name, kubeconfig, g.logger)
		}
		g.logger.V(0).Infof("Rehearsal finished in %s", time.Since(start).Round(time.Second))
	}()
	tl, timelinePath, env, err := openRun(g, s, out, true) // a rehearsal starts a fresh timeline
	if err != nil {
		return err
	}
	defer tl.Close()
	env.Force = force
	if s, err = migrate.Resolve(cmd.Context(), env); err != nil {
		return err
	}
	procs := []*migrate.Procedure{p}
	if s.Variant.Rollback {
		// A rollback needs the migration it undoes: rehearse both.
		fwd := s
		fwd.Variant.Rollback = false
		first, err := migrate.Build(fwd)
		if err != nil {
			return err
		}
		procs = []*migrate.Procedure{first, p}
	}
	return runObserved(cmd, env, procs, migrate.RunOptions{}, tl, timelinePath, out, true)
}
