package rehearsal

import (
	"strings"
	"testing"

	"github.com/handover-sh/handover/simulate/faults"
)

// Every duration of a rehearsal file has a range: a negative one, or one
// that would hold the cluster for years, is refused before anything runs.
func TestFileDurationsHaveARange(t *testing.T) {
	onMachine(t, 2, 20)
	cases := []struct {
		name string
		set  func(*Config)
		want string
	}{
		{"a settle of centuries", func(c *Config) { c.Intervals = map[string]string{"settle": "2562047h"} }, "intervals: settle is 2562047h0m0s, out of range: give from 1s to 1h"},
		{"a negative interval", func(c *Config) { c.Intervals = map[string]string{"poll": "-5s"} }, "intervals: poll must be positive"},
		{"a fault of a century", func(c *Config) { c.Faults = FaultInput{Name: faults.CloudOutage, Duration: "876000h"} }, "faults.duration 876000h is out of range: give from 0s to 30m"},
		{"a negative fault delay", func(c *Config) { c.Faults = FaultInput{Name: faults.LeaderKill, Delay: "-5s"} }, "faults.delay -5s is negative: give from 0s to 30m"},
		{"a negative observeAfter", func(c *Config) { c.ObserveAfter = "-1s" }, "observeAfter -1s is negative"},
		{"observeAfter of hours", func(c *Config) { c.ObserveAfter = "2h" }, "observeAfter 2h is out of range: give from 0s to 30m"},
		{"a negative join interval", func(c *Config) { c.Scale.Nodes, c.Scale.JoinEvery = 5, "-5s" }, "scale.joinEvery -5s is negative"},
		{"a join interval of days", func(c *Config) { c.Scale.Nodes, c.Scale.JoinEvery = 5, "48h" }, "scale.joinEvery 48h is out of range: give from 0s to 1h"},
	}
	for _, tc := range cases {
		c := Default()
		tc.set(&c)
		if _, err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	help := DurationHelp()
	for _, want := range []string{"faults.duration  from 0s to 30m", "intervals        each from 1s to 1h"} {
		if !strings.Contains(help, want) {
			t.Errorf("help %q lacks %q", help, want)
		}
	}
}
