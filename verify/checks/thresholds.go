package checks

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// A threshold is a limit the checks judge by, named so that a rehearsal
// file's thresholds: can set it for a cluster slower or faster than the
// simulated one. The rehearsal records what it set on the timeline
// (timeline.Thresholds), so a report made again from the timeline judges
// alike.
type threshold struct {
	name, doc string
	get       func(Config) string
	set       func(*Config, string) error
}

// Each has a bound beyond which a check could no longer fail: a gap longer
// than the lease's many renewals, an outage so long that a target which
// never answered is too young to judge, a share of probes so low that a
// target down half the time passes.
const (
	maxMaxGap    = 5 * time.Minute
	maxMaxOutage = time.Minute
	maxMaxStale  = 10 * time.Minute
	// maxPending is the default max-lb-pending: max-gap's default, then
	// the service controller's retries (5s doubling) over four refusals.
	maxPending    = 40*time.Second + 75*time.Second
	maxMaxPending = 10 * time.Minute
	maxSettle     = 5 * time.Minute
	minShare      = 0.5
)

var thresholds = []threshold{
	{"max-gap", "the longest a migrated controller may run in no manager (lease duration + retry period + start-up; at most 5m)",
		func(c Config) string { return c.MaxGap.String() }, func(c *Config, v string) error { return setDuration(&c.MaxGap, v, maxMaxGap) }},
	{"max-outage", "the longest the API or a load balancer may fail its probes (at most 1m)",
		func(c Config) string { return c.MaxOutage.String() }, func(c *Config, v string) error { return setDuration(&c.MaxOutage, v, maxMaxOutage) }},
	{"min-availability", "the share of API and load-balancer probes that must succeed (99% or 0.99; at least 50%)",
		func(c Config) string { return strconv.FormatFloat(100*c.MinAvailability, 'f', -1, 64) + "%" }, setShare},
	{"max-stale-node", "the longest a Node may outlive its terminated instance (node-monitor-grace-period + the cloud-node-lifecycle controller's period + its delete; at most 10m)",
		func(c Config) string { return c.MaxStale.String() }, func(c *Config, v string) error { return setDuration(&c.MaxStale, v, maxMaxStale) }},
	{"max-lb-pending", "the longest a new LoadBalancer Service may wait for its load balancer's address (max-gap's 40s with the service controller in no manager, then its retries over a cloud refusing now and then, 5s, 10s, 20s and 40s of its back-off; at most 10m)",
		func(c Config) string { return c.MaxPending.String() }, func(c *Config, v string) error { return setDuration(&c.MaxPending, v, maxMaxPending) }},
	{"route-settle", "how long after a Node got its pod CIDR, or went, its route may still be missing or stay (three route reconciliations, plus the provider's batching of route writes; at most 5m)",
		func(c Config) string { return c.RouteSettle.String() }, func(c *Config, v string) error { return setDuration(&c.RouteSettle, v, maxSettle) }},
	{"clock-tolerance", "how far apart two sources' clocks may be (at most 1s)",
		func(c Config) string { return c.Tolerance.String() }, setTolerance},
}

// BasisSuffix marks, among a timeline's thresholds, the basis of the
// threshold it follows (max-gap.basis).
const BasisSuffix = ".basis"

// Set sets the named threshold from its written form.
func (c *Config) Set(name, value string) error {
	for _, t := range thresholds {
		if t.name == name {
			if err := t.set(c, value); err != nil {
				return fmt.Errorf("threshold %s: %w", name, err)
			}
			return nil
		}
	}
	return fmt.Errorf("no threshold %q (known: %s)", name, strings.Join(ThresholdNames(), ", "))
}

// ThresholdNames lists the thresholds.
func ThresholdNames() []string {
	out := make([]string, 0, len(thresholds))
	for _, t := range thresholds {
		out = append(out, t.name)
	}
	return out
}

// ThresholdHelp lists every threshold with its default, one per line.
func ThresholdHelp() string {
	d := DefaultConfig(nil)
	var b strings.Builder
	for _, t := range thresholds {
		fmt.Fprintf(&b, "  %-19s %-5s %s\n", t.name, t.get(d), t.doc)
	}
	return strings.TrimRight(b.String(), "\n")
}

func setDuration(d *time.Duration, v string, limit time.Duration) error {
	x, err := time.ParseDuration(v)
	if err != nil {
		return err
	}
	if x <= 0 || x > limit {
		return fmt.Errorf("%s is not between 0 and %s", v, limit)
	}
	*d = x
	return nil
}

func setShare(c *Config, v string) error {
	pct := strings.HasSuffix(v, "%")
	x, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if err != nil {
		return fmt.Errorf("%q is not a share: write 99%% or 0.99", v)
	}
	if pct {
		x /= 100
	}
	if math.IsNaN(x) || x < minShare || x > 1 {
		return fmt.Errorf("%s is not a share between %g%% and 100%%", v, 100*minShare)
	}
	c.MinAvailability = x
	return nil
}

// setTolerance keeps the clock tolerance at most a second: the checks
// compare sources sampled every 500 ms, and a looser tolerance would let
// two managers' overlap pass as a hand-off.
func setTolerance(c *Config, v string) error {
	return setDuration(&c.Tolerance, v, time.Second)
}
