package main

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/reports"
	"github.com/handover-sh/handover/verify/observe"
	"github.com/handover-sh/handover/verify/timeline"
)

func newObserveCommand(g *globals) *cobra.Command {
	var f specFlags
	var out string
	var duration time.Duration
	c := &cobra.Command{
		Use:   "observe",
		Short: "Record a cluster on a timeline (e.g. while migrating it by hand), then check it",
		Long: `observe runs only the observers: lease holders, each manager's controllers,
cloud calls, API and load-balancer probes and nodes go onto --out/timeline.jsonl
until Ctrl-C or --for elapses; then the checks run and the reports are written
as by ` + "`handover report`" + `. --procedure picks which controllers count as migrated.`,
		Example: "  handover observe --name handover --out reports/manual --for 10m",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, _, err := f.build()
			if err != nil {
				return err
			}
			tl, path, env, err := openRun(g, s, out, false)
			if err != nil {
				return err
			}
			defer tl.Close()
			// The run.start the reports read the migrated controllers from.
			if err := tl.Write(timeline.Event{Source: "observer", Kind: timeline.RunStart, Message: "observed " + s.Cluster,
				Attrs: map[string]string{"controllers": strings.Join(s.Controllers(), ",")}}); err != nil {
				return err
			}
			ctx := cmd.Context()
			if duration > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, duration)
				defer cancel()
			}
			ob, err := observe.StartFor(ctx, env, tl)
			if err != nil {
				return err
			}
			g.logger.V(0).Infof("Observing %s into %s (Ctrl-C to stop) ...", s.Cluster, path)
			<-ctx.Done()
			ob.Stop()
			if err := tl.Close(); err != nil {
				return err
			}
			_, err = reports.Conclude(path, out, cmd.OutOrStdout())
			return err
		},
	}
	f.add(c.Flags())
	c.Flags().StringVar(&out, "out", filepath.Join("reports", "observe"), "directory for the timeline and the reports")
	c.Flags().DurationVar(&duration, "for", 0, "stop after this long (default: at Ctrl-C)")
	return c
}
