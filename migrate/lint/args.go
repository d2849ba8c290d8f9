package lint

import (
	"fmt"
	"strconv"
	"time"

	"github.com/handover-sh/handover/internal/cmdline"
)

// Flag returns the value of --name among the side's extra flags: the last
// one given, as pflag keeps it; a bare flag reads "true".
func (s Side) Flag(name string) (string, bool) { return cmdline.Value(s.Args, name) }

// Election is the leader election a manager runs: the same timings serve
// its main lease and the migration lease.
type Election struct {
	Elect                       bool
	Lease, RenewDeadline, Retry time.Duration
}

// The managers' defaults (component-base's
// RecommendedDefaultLeaderElectionConfiguration).
var defaultElection = Election{Elect: true, Lease: 15 * time.Second, RenewDeadline: 10 * time.Second, Retry: 2 * time.Second}

// Election is the side's leader election, its flags over the defaults. A
// value that does not parse keeps the default (the binary check refuses it).
func (s Side) Election() Election {
	e := defaultElection
	if v, ok := s.Flag("leader-elect"); ok {
		if b, err := strconv.ParseBool(v); err == nil {
			e.Elect = b
		}
	}
	for name, d := range map[string]*time.Duration{
		"leader-elect-lease-duration": &e.Lease, "leader-elect-renew-deadline": &e.RenewDeadline, "leader-elect-retry-period": &e.Retry,
	} {
		if v, ok := s.Flag(name); ok {
			if x, err := time.ParseDuration(v); err == nil {
				*d = x
			}
		}
	}
	return e
}

// jitter is client-go's leaderelection.JitterFactor: NewLeaderElector
// refuses a renew deadline not above it times the retry period.
const jitter = 1.2

// lintElection reports leader-election settings a manager refuses to start
// with, and leader election turned off under leader migration.
func lintElection(s Side) Findings {
	e := s.Election()
	where := s.Component + " " + s.Version + " --leader-elect"
	var out Findings
	if !e.Elect && s.LeaderMigration {
		out = append(out, Finding{Error, where,
			"is false: leader migration runs only under leader election (the managers check both), so " + s.Component + " runs every controller with no lock at all",
			"keep --leader-elect=true on every manager taking part"})
	}
	if !e.Elect {
		return out
	}
	out = append(out, lintMainLock(s, where+"-resource-lock")...)
	if e.Lease < time.Second {
		out = append(out, Finding{Error, where + "-lease-duration",
			fmt.Sprintf("%s: the lease records whole seconds, so a candidate sees a lease of 0 s as always expired and takes it from a live leader", e.Lease),
			"give a lease of at least 1s (the default is 15s)"})
	} else if e.Lease%time.Second != 0 {
		out = append(out, Finding{Warning, where + "-lease-duration",
			fmt.Sprintf("%s: the lease records whole seconds (%s); candidates judge expiry by their own flag", e.Lease, e.Lease.Truncate(time.Second)),
			"give whole seconds"})
	}
	if e.Lease <= e.RenewDeadline {
		out = append(out, Finding{Error, where + "-lease-duration",
			fmt.Sprintf("%s is not longer than --leader-elect-renew-deadline %s: client-go refuses the election and %s exits", e.Lease, e.RenewDeadline, s.Component),
			"make the lease duration longer than the renew deadline"})
	}
	if float64(e.RenewDeadline) <= jitter*float64(e.Retry) {
		out = append(out, Finding{Error, where + "-renew-deadline",
			fmt.Sprintf("%s is not longer than %.1f × --leader-elect-retry-period %s: client-go refuses the election and %s exits", e.RenewDeadline, jitter, e.Retry, s.Component),
			"make the renew deadline longer than 1.2 times the retry period"})
	}
	return out
}

// lintFlagPair compares flags both managers must agree on while the cloud
// controllers move from one to the other.
func lintFlagPair(k, c Side) Findings {
	var out Findings
	if clusterName(k) != clusterName(c) {
		out = append(out, Finding{Error, "cloud-controller-manager --cluster-name",
			fmt.Sprintf("%s differs from kube-controller-manager's %s: cloud load balancers and routes are named and tagged after it, so after the hand-off the cloud-controller-manager does not find the ones kube-controller-manager made, makes new ones and leaves the old behind", clusterName(c), clusterName(k)),
			"give both managers the same --cluster-name"})
	}
	kr, cr := k.routes(), c.routes()
	if kr != cr {
		out = append(out, Finding{Error, "cloud-controller-manager --configure-cloud-routes",
			fmt.Sprintf("is %t while kube-controller-manager's is %t: the route controller starts or stops at the hand-off, so nodes that join after it %s", cr, kr,
				map[bool]string{true: "get routes the cluster never had before", false: "get no routes and their pods are unreachable"}[cr]),
			"give both managers the same --configure-cloud-routes"})
	}
	return out
}

// clusterName is the side's --cluster-name as written in a finding; the
// managers' default is "kubernetes".
func clusterName(s Side) string {
	if s.ClusterName == "" {
		return `"kubernetes" (the default)`
	}
	return fmt.Sprintf("%q", s.ClusterName)
}

// routes reports whether the side's route controller configures routes:
// --configure-cloud-routes (default true) with --allocate-node-cidrs.
func (s Side) routes() bool {
	v, ok := s.Flag("configure-cloud-routes")
	on, err := strconv.ParseBool(v)
	return (!ok || (err == nil && on)) && s.AllocateNodeCIDRs
}

// WithArgs is the side with its extra flags applied to the fields the lint
// reads: what the manager runs with.
func (s Side) WithArgs() Side {
	if v, ok := s.Flag("controllers"); ok {
		s.Controllers = v
	}
	if v, ok := s.Flag("allocate-node-cidrs"); ok {
		s.AllocateNodeCIDRs, _ = strconv.ParseBool(v)
	}
	if v, ok := s.Flag("cluster-name"); ok {
		s.ClusterName = v
	}
	// Each --feature-gates adds its gates to those before it (component-
	// base's featureGate.Set), a gate given again taking the later value.
	for _, a := range s.Args {
		if n, v, ok := cmdline.Split(a); ok && n == "feature-gates" {
			s.FeatureGates = cmdline.MergeGates(s.FeatureGates, v)
		}
	}
	return s
}
