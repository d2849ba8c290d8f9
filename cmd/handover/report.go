package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/reports"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
)

func newReportCommand(g *globals) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "report TIMELINE",
		Short: "Check a recorded timeline and write JUnit, Markdown and HTML reports",
		Long: `report re-reads a timeline (JSON lines written by ` + "`handover migrate`, `rehearse` or `observe`" + `),
runs every check on it and writes junit.xml, summary.md and report.html. It
exits 1 when a check failed, 2 when the timeline cannot be read or judged.`,
		Example: "  handover report _output/taskdoc/timeline.jsonl --out _output/taskdoc",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = filepath.Dir(args[0])
			}
			return concluded(reports.Conclude(args[0], out, judge(), cmd.OutOrStdout()))
		},
	}
	c.Flags().StringVar(&out, "out", "", "directory for the reports (default: the timeline's)")
	c.AddCommand(newReportMergeCommand())
	return c
}

func newReportMergeCommand() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "merge TABLE... | merge TIMELINE... --out DIR",
		Short: "Merge verdict tables (the version matrix's shards), or several observers' timelines, into one",
		Long: `merge joins Markdown tables with one same header — each shard's
_output/suites/matrix/verdicts.md — into one table: the header once, every row
once, sorted. Tables with different headers, or files holding anything but the
table, are refused by name.

Given timelines (.jsonl) — one per control plane, each from handover observe
run on that node, where it samples the managers bound to its loopback — merge
joins them into DIR/timeline.jsonl and checks it as one observation, writing
the reports there. Each later timeline's clock is set to the first's by the
changes both watched (lease holders, Nodes), measured and printed; timelines
that share no change, or whose clocks spread wider than the checks' clock
tolerance (1 s), are refused. The API's evidence comes from the first, each
node's managers' health and metrics and its audit log from its own.`,
		Example: "  handover report merge shard-*/suites/matrix/verdicts.md --out verdicts.md\n" +
			"  handover report merge cp-1/timeline.jsonl cp-2/timeline.jsonl cp-3/timeline.jsonl --out merged",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if timelines(args) {
				return mergeTimelines(cmd, args, out)
			}
			merged, err := reports.MergeTables(args...)
			if err != nil {
				return exitcode.AsBadInput(err)
			}
			if out == "" {
				_, err = fmt.Fprint(cmd.OutOrStdout(), merged)
				return err
			}
			return exitcode.AsInfrastructure(privatefs.WriteFileMode(out, []byte(merged), 0o644))
		},
	}
	c.Flags().StringVar(&out, "out", "", "write the merged table here (default: standard output); for timelines, the directory of the merged timeline and its reports (required)")
	return c
}

// concluded classes what Conclude returns for a timeline the user named:
// a failed check is the verdict (red); a timeline that could not be read
// or judged, so that no report was written, is bad input; reports that
// could not be written, the machine's.
func concluded(r *reports.Report, err error) error {
	switch {
	case err == nil, errors.Is(err, reports.ErrChecksFailed):
		return err
	case r == nil:
		return exitcode.AsBadInput(err)
	}
	return exitcode.AsInfrastructure(err)
}

// timelines: every argument is a timeline (.jsonl); a mix is refused by
// mergeTimelines's reading of the others.
func timelines(args []string) bool {
	for _, a := range args {
		if filepath.Ext(a) != ".jsonl" {
			return false
		}
	}
	return true
}

// mergeTimelines joins observers' timelines, writes the merged one to
// out and checks it.
func mergeTimelines(cmd *cobra.Command, paths []string, out string) error {
	m, err := mergeInput(paths, out)
	if err != nil {
		return exitcode.AsBadInput(err)
	}
	for _, o := range m.Offsets {
		fmt.Fprintf(cmd.OutOrStdout(), "clock of %s\n", o)
	}
	path := filepath.Join(out, "timeline.jsonl")
	if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
		return exitcode.AsBadInput(fmt.Errorf("%s already holds a timeline: the merged one would be judged with it; give another --out", path))
	}
	if err := writeTimeline(path, m.Events); err != nil {
		return exitcode.AsInfrastructure(err)
	}
	return concluded(reports.Conclude(path, out, judge(), cmd.OutOrStdout()))
}

// mergeInput reads the timelines to merge and merges them, refusing
// clocks that cannot be set.
func mergeInput(paths []string, out string) (timeline.Merged, error) {
	if out == "" {
		return timeline.Merged{}, errors.New("merging timelines needs --out DIR for the merged timeline and its reports")
	}
	obs := make([]timeline.Observation, 0, len(paths))
	for _, p := range paths {
		evs, err := timeline.ReadFile(p)
		if err != nil {
			return timeline.Merged{}, fmt.Errorf("%s: %w", p, err)
		}
		obs = append(obs, timeline.Observation{Name: p, Events: evs})
	}
	return timeline.Merge(obs, checks.DefaultConfig(nil).Tolerance)
}

// writeTimeline writes evs into a new timeline at path (its directory
// made first).
func writeTimeline(path string, evs []timeline.Event) error {
	if err := privatefs.MkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	tl, err := timeline.Create(path)
	if err != nil {
		return err
	}
	for _, e := range evs {
		if err := tl.Write(e); err != nil {
			tl.Close()
			return err
		}
	}
	return tl.Close()
}
