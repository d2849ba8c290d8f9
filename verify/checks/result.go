package checks

import (
	"fmt"
	"slices"
	"time"
)

// Result is one check of one subject (a controller, an endpoint, a node).
type Result struct {
	Check      string
	Subject    string
	Passed     bool
	Summary    string
	Violations []Violation
	// Metrics are measured values (seconds, ratios) for the reports, and
	// the thresholds they were judged by (max_gap_seconds, ...).
	Metrics map[string]float64
	// Skipped says why the subject was not judged at all: the observation
	// declared it could not have the evidence (a cluster observed from its
	// kubeconfig shows nothing of its cloud). Such a result blocks no
	// verdict and the reports list it as skipped, never as passed.
	Skipped string
}

// Violation is one breach, with its time span and evidence.
type Violation struct {
	From, To time.Time
	Message  string
	Evidence []string
	// Sources that agree on it (health, api-audit, cloud-audit, lease...).
	Sources []string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s – %s: %s", v.From.UTC().Format("15:04:05.000"), v.To.UTC().Format("15:04:05.000"), v.Message)
}

// Unproven: the check failed for want of evidence, not on what it saw.
func (r Result) Unproven() bool {
	return !r.Passed && slices.ContainsFunc(r.Violations, func(v Violation) bool { return slices.Equal(v.Sources, []string{Evidence}) })
}

// notJudged is the skipped result of a check whose evidence the
// observation said at its start it could not have.
func notJudged(check, subject, why string) Result {
	return Result{Check: check, Subject: subject, Passed: true, Skipped: why, Summary: "not judged: " + why}
}

func result(check, subject string, vs []Violation, summary string, metrics map[string]float64) Result {
	return Result{Check: check, Subject: subject, Passed: len(vs) == 0, Summary: summary, Violations: vs, Metrics: metrics}
}

// Config holds the thresholds.
type Config struct {
	// Controllers are the migrated controllers, by canonical name.
	Controllers []string
	// Tolerance is the clock tolerance between sources (at most 1s).
	Tolerance time.Duration
	// MaxGap is the longest a controller may run nowhere: lease duration
	// + retry period + start-up.
	MaxGap time.Duration
	// MinAvailability and MaxOutage bound the API and LB probes.
	MinAvailability float64
	MaxOutage       time.Duration
	// MaxStale bounds how long a Node may outlive its instance.
	MaxStale time.Duration
	// MaxPending bounds how long a new LoadBalancer Service may wait for
	// its load balancer's address.
	MaxPending time.Duration
	// RouteSettle is how long after a Node got its pod CIDR, or went, its
	// route may still be missing or stay: a route change's way through the
	// route controller and the provider.
	RouteSettle time.Duration
	// Basis says, by threshold name, where a value not the default comes
	// from (e.g. max-gap from the leader-election flags in force); the
	// checks print it beside the value.
	Basis map[string]string
}

// threshold is a threshold's value as a check prints it: the basis when
// there is one, else the value.
func (c Config) threshold(name string, value fmt.Stringer) string {
	if b := c.Basis[name]; b != "" {
		return b
	}
	return value.String()
}

// DefaultConfig: leases of 15s, retries of 2s, and up to 23s for a manager
// to start its controllers after it leads.
func DefaultConfig(controllers []string) Config {
	return Config{Controllers: controllers, Tolerance: time.Second, MaxGap: 40 * time.Second,
		MinAvailability: 0.99, MaxOutage: 5 * time.Second, MaxStale: 2 * time.Minute, MaxPending: maxPending, RouteSettle: routeSettle}
}

// Check names.
const (
	MutualExclusion = "mutual-exclusion"
	CoverageGap     = "coverage-gap"
	APIAvailability = "api-availability"
	LBAvailability  = "lb-availability"
	ProviderID      = "provider-id"
	Uninitialized   = "uninitialized-taint"
	LBIdentity      = "lb-identity"
	NodeDeletion    = "node-deletion"
	Procedure       = "procedure"
	Load            = "load"
	Evidence        = "evidence"
	LBIngress       = "lb-ingress"
	LBSingle        = "lb-single"
	PodCIDR         = "pod-cidr"
)
