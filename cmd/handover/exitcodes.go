package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/internal/exitcode"
)

// execute runs the root command. What fails before the command's RunE
// started, unless the root's hook classed it, is cobra refusing the
// command line (an unknown command or flag, a flag's value, arguments,
// required or exclusive flags): bad input. The commands class their own
// errors where they arise.
func execute(ctx context.Context, root *cobra.Command, g *globals) error {
	err := root.ExecuteContext(ctx)
	if err != nil && !g.ran {
		return exitcode.AsBadInput(err)
	}
	return err
}

// noteRuns makes every command's RunE say it started (g.ran).
func noteRuns(c *cobra.Command, g *globals) {
	if run := c.RunE; run != nil {
		c.RunE = func(c *cobra.Command, args []string) error {
			g.ran = true
			return run(c, args)
		}
	}
	for _, sub := range c.Commands() {
		noteRuns(sub, g)
	}
}

// failsAs classes what run returns as code, unless a nearer place classed
// it already (a validation inside it: bad input).
func failsAs(code exitcode.Code, run func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error { return exitcode.Wrap(code, run(c, args)) }
}

// exitCodesHelp is the root help's table of exit codes.
func exitCodesHelp() string {
	var b strings.Builder
	for _, r := range exitcode.Table {
		fmt.Fprintf(&b, "\n  %-3d %s", r.Code, r.Meaning)
	}
	return b.String()
}
