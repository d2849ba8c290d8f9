package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/internal/privatefs"
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
	c.AddCommand(newReportMergeCommand())
	return c
}

func newReportMergeCommand() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "merge TABLE...",
		Short: "Merge verdict tables (the version matrix's shards) into one",
		Long: `merge joins Markdown tables with one same header — each shard's
_output/suites/matrix/verdicts.md — into one table: the header once, every row
once, sorted. Tables with different headers, or files holding anything but the
table, are refused by name.`,
		Example: "  handover report merge shard-*/suites/matrix/verdicts.md --out verdicts.md",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			merged, err := reports.MergeTables(args...)
			if err != nil {
				return err
			}
			if out == "" {
				_, err = fmt.Fprint(cmd.OutOrStdout(), merged)
				return err
			}
			return privatefs.WriteFileMode(out, []byte(merged), 0o644)
		},
	}
	c.Flags().StringVar(&out, "out", "", "write the merged table here (default: standard output)")
	return c
}
