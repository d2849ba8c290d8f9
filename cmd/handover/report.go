package main

import (
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/reports"
)

func newReportCommand(g *globals) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "report TIMELINE",
		Short: "Check a recorded timeline and write JUnit, Markdown and HTML reports",
		Long: `report re-reads a timeline (JSON lines written by ` + "`handover migrate`" + `),
runs every check on it and writes junit.xml, summary.md and report.html. It
exits non-zero when a check failed.`,
		Example: "  handover report _output/taskdoc/timeline.jsonl --out _output/taskdoc",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = filepath.Dir(args[0])
			}
			_, err := reports.Conclude(args[0], out, cmd.OutOrStdout())
			return err
		},
	}
	c.Flags().StringVar(&out, "out", "", "directory for the reports (default: the timeline's)")
	return c
}
