package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/handover-sh/handover/internal/durations"
	"github.com/handover-sh/handover/simulate/cloudserver"
)

// durationFlags are the ranges of every duration flag, by command and flag:
// each flag's help says its range, and a value outside it (a negative one
// included) is refused before the command runs.
var durationFlags = map[string]durations.Range{
	// 0: until Ctrl-C. A week covers a migration watched by hand.
	"observe --for": {Min: 0, Max: 7 * 24 * time.Hour},
	// 0: the cluster-ready wait's default (5m).
	"cluster create --wait": {Min: 0, Max: time.Hour},
	// Beyond minutes every caller's own timeout fires: an outage.
	"simcloud faults --latency": {Min: 0, Max: 5 * time.Minute},
	// A kept cluster's cloud out for a day at most; --clear ends it sooner.
	"simcloud faults --outage-for": {Min: 0, Max: 24 * time.Hour},
	// The cloud refuses a longer lag (cloudserver.MaxLag says why).
	"simcloud faults --lag": {Min: 0, Max: cloudserver.MaxLag},
}

// durationKey names a command's flag in durationFlags.
func durationKey(c *cobra.Command, f *pflag.Flag) string {
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ") + " --" + f.Name
}

// eachDurationFlag calls do for every duration flag of c (a former name
// of one is its flag's, checked under the new name).
func eachDurationFlag(c *cobra.Command, do func(f *pflag.Flag, key string)) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Value.Type() == "duration" && f.Deprecated == "" {
			do(f, durationKey(c, f))
		}
	})
}

// documentDurations appends each duration flag's range to its help.
func documentDurations(c *cobra.Command) {
	eachDurationFlag(c, func(f *pflag.Flag, key string) {
		if r, ok := durationFlags[key]; ok {
			f.Usage += " (" + r.String() + ")"
		}
	})
	for _, sub := range c.Commands() {
		documentDurations(sub)
	}
}

// checkDurations refuses a duration flag of c outside its range, and one
// without a range (a flag added without its row).
func checkDurations(c *cobra.Command) error {
	var err error
	eachDurationFlag(c, func(f *pflag.Flag, key string) {
		r, ok := durationFlags[key]
		if err != nil {
			return
		}
		if !ok {
			err = fmt.Errorf("--%s has no range (durationFlags)", f.Name)
			return
		}
		d, _ := time.ParseDuration(f.Value.String())
		if e := r.Check(d); e != nil {
			err = fmt.Errorf("--%s %w", f.Name, e)
		}
	})
	return err
}
