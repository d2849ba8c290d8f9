package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every duration flag has a row in durationFlags, and every row a flag.
func TestEveryDurationFlagHasARange(t *testing.T) {
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		eachDurationFlag(c, func(f *pflag.Flag, key string) {
			seen[key] = true
			if _, ok := durationFlags[key]; !ok {
				t.Errorf("%s has no range in durationFlags", key)
			} else if !strings.Contains(f.Usage, "(from ") {
				t.Errorf("%s's help does not say its range: %q", key, f.Usage)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand())
	for key := range durationFlags {
		if !seen[key] {
			t.Errorf("durationFlags names %s, which is no duration flag", key)
		}
	}
}

// A duration flag outside its range is refused before the command runs:
// --for -5s observed forever.
func TestDurationFlagsOutOfRangeAreRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"observe", "--for", "-5s"}, "--for -5s is negative: give from 0s to 168h"},
		{[]string{"observe", "--for", "876000h"}, "--for 876000h is out of range: give from 0s to 168h"},
		{[]string{"cluster", "create", "--wait", "-1m"}, "--wait -1m is negative: give from 0s to 1h"},
		{[]string{"simcloud", "faults", "--outage-for", "876000h"}, "--outage-for 876000h is out of range: give from 0s to 24h"},
		{[]string{"simcloud", "faults", "--latency", "-1s"}, "--latency -1s is negative"},
	} {
		if err := runCLI(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
