package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/rehearsal/matrix"
)

func newMatrixCommand(_ *globals) *cobra.Command {
	var list, asJSON bool
	var versions string
	c := &cobra.Command{
		Use:   "matrix",
		Short: "List the version matrix's shards: a version pair each, with its rows",
		Long: `matrix lists the version matrix (make matrix, the nightly CI) as shards, one
per version pair handover builds, each with its rows: the leader-migration
configurations (canonical, verbatim, default) × the providers whose manager
the simulated one imitates where that provider is in tree at the pair's N.

--json prints the shards' names as a JSON array, for a CI system's own
matrix (one job per shard: make matrix SHARD=NAME); --versions NAME prints a
shard's two Kubernetes versions. The shards' verdict tables are merged with
handover report merge.`,
		Example: "  handover matrix --list\n  handover matrix --list --json\n  make matrix SHARD=130-131",
		Args:    cobra.NoArgs,
		RunE: failsAs(exitcode.BadInput, func(cmd *cobra.Command, _ []string) error {
			out := cmd.OutOrStdout()
			switch {
			case versions != "":
				sh, err := matrix.Lookup(versions)
				if err != nil {
					return err
				}
				fmt.Fprintln(out, sh.From, sh.To)
			case list && asJSON:
				var names []string
				for _, sh := range matrix.Shards() {
					names = append(names, sh.Name)
				}
				return json.NewEncoder(out).Encode(names)
			case list:
				for _, sh := range matrix.Shards() {
					var rows []string
					for _, r := range sh.Rows {
						rows = append(rows, r.Name())
					}
					fmt.Fprintf(out, "%s\t%s → %s\t%d rows: %s\n", sh.Name, sh.From, sh.To, len(rows), strings.Join(rows, ", "))
				}
			default:
				return fmt.Errorf("say what to print: --list or --versions SHARD")
			}
			return nil
		}),
	}
	c.Flags().BoolVar(&list, "list", false, "list the shards and their rows")
	c.Flags().BoolVar(&asJSON, "json", false, "with --list: the shards' names as a JSON array")
	c.Flags().StringVar(&versions, "versions", "", "print a shard's N and N+1 versions")
	return c
}
