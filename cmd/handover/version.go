package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/internal/version"
	"github.com/handover-sh/handover/reports"
)

// newVersionCommand prints handover's version as `kind version` does.
func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print handover's version",
		Long: `version prints handover's version, the Go version it was built with and the
platform, as kind version does. The version is what the go command stamped
into the binary: a tag, or a pseudo-version naming the commit (+dirty when
the work tree had changes). Reports name it as the handover that judged them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), version.Get().Display())
			return err
		},
	}
}

// judge is what reports say of the handover that judged them when it knows
// nothing more of the run (report, observe): its version.
func judge() reports.About { return reports.About{Handover: version.Get().String()} }
