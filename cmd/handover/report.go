package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/reports"
	"github.com/handover-sh/handover/verify/timeline"
)

func newReportCommand(g *globals) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "report TIMELINE",
		Short: "Check a recorded timeline and write JUnit, Markdown and HTML reports",
		Long: `report re-reads a timeline (JSON lines written by ` + "`handover migrate`" + `),
runs every check on it and writes junit.xml, summary.md and report.html. It
exits non-zero when a check failed.`,
		Example: "  handover report reports/taskdoc/timeline.jsonl --out reports/taskdoc",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			evs, err := timeline.ReadFile(args[0])
			if err != nil {
				return err
			}
			if out == "" {
				out = filepath.Dir(args[0])
			}
			return writeReports(cmd, out, evs)
		},
	}
	c.Flags().StringVar(&out, "out", "", "directory for the reports (default: the timeline's)")
	return c
}

// writeReports checks evs, writes the reports and says the verdict.
func writeReports(cmd *cobra.Command, dir string, evs []timeline.Event) error {
	r := reports.New(reports.TitleFor(evs), evs, reports.ConfigFor(evs))
	if err := reports.WriteAll(dir, r); err != nil {
		return err
	}
	failed := 0
	for _, res := range r.Results {
		if !res.Passed {
			failed++
			fmt.Fprintf(cmd.OutOrStdout(), "FAIL %s %s: %s\n", res.Check, res.Subject, res.Violations[0].Message)
		}
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%d checks, %d failed; reports in %s (%s, %s, %s)\n", len(r.Results), failed, dir,
		reports.JUnitFile, reports.MarkdownFile, reports.HTMLFile)
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed (see %s)", failed, len(r.Results), filepath.Join(dir, reports.MarkdownFile))
	}
	return nil
}
