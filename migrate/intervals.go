package migrate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/handover-sh/handover/migrate/lint"
)

// Interval names: how long a procedure waits for what, and how often it
// re-checks. A rehearsal file's intervals: overrides them by name (as
// cluster-api's e2e configuration does), for clusters slower or faster
// than the simulated one.
const (
	IntervalPoll             = "poll"
	IntervalLeaseGrant       = "lease-grant"
	IntervalJoin             = "node-join"
	IntervalWorkerJoin       = "worker-join"
	IntervalControlPlane     = "control-plane-ready"
	IntervalManagerRestart   = "manager-restart"
	IntervalKubeletRestart   = "kubelet-restart"
	IntervalSingleOwner      = "single-owner"
	IntervalMainLeaseHandoff = "main-lease-handoff"
	IntervalSwitch           = "switch"
	IntervalRollout          = "rollout"
	IntervalSettle           = "settle"
	IntervalUndo             = "undo"
)

// IntervalInfo is one row of the table.
type IntervalInfo struct {
	Default time.Duration
	Doc     string
}

// intervalTable is every interval with its default.
var intervalTable = map[string]IntervalInfo{
	IntervalPoll:             {time.Second, "how often a wait re-checks its condition"},
	IntervalLeaseGrant:       {30 * time.Second, "SubjectAccessReviews allow the managers the migration lease after a grant"},
	IntervalJoin:             {3 * time.Minute, "a joining control plane's Node becomes Ready (kubeadm join)"},
	IntervalWorkerJoin:       {4 * time.Minute, "a worker still joining writes its kubelet flags"},
	IntervalControlPlane:     {2 * time.Minute, "every manager static pod of a version runs after a join or upgrade"},
	IntervalManagerRestart:   {3 * time.Minute, "a rewritten manager manifest runs, and the controllers settle after a rolling restart"},
	IntervalKubeletRestart:   {2 * time.Minute, "a restarted kubelet renews its lease and its Node is Ready"},
	IntervalSingleOwner:      {2 * time.Minute, "after a removal, each migrated controller runs in exactly one manager"},
	IntervalMainLeaseHandoff: {time.Minute, "another instance takes a stopped manager's main lease (lease duration and retries)"},
	IntervalSwitch:           {time.Minute, "every node runs the external cloud provider after the switch"},
	IntervalRollout:          {3 * time.Minute, "the cloud-controller-manager chart rolls out"},
	IntervalSettle:           {3 * time.Minute, "the controllers settle in one manager and every node has its ProviderID"},
	IntervalUndo:             {3 * time.Minute, "undoing a failed step"},
}

// Intervals overrides intervals by name; the rest keep their defaults.
type Intervals map[string]time.Duration

// Of is the named interval.
func (i Intervals) Of(name string) time.Duration {
	if d, ok := i[name]; ok {
		return d
	}
	info, ok := intervalTable[name]
	if !ok {
		panic("migrate: no interval " + name)
	}
	return info.Default
}

// leaseBound are the waits that include a stopped manager's lease running
// out: longer leases or retries lengthen them.
var leaseBound = []string{IntervalMainLeaseHandoff, IntervalSingleOwner, IntervalManagerRestart, IntervalSettle}

// following lengthens the lease-bound waits not given by how much the
// election's lease and retry period exceed the managers' defaults.
func (i Intervals) following(e lint.Election) Intervals {
	d := lint.Side{}.Election()
	extra := max(0, e.Lease-d.Lease) + time.Duration(retryWindows*float64(max(0, e.Retry-d.Retry)))
	if extra == 0 {
		return i
	}
	out := maps.Clone(i)
	if out == nil {
		out = Intervals{}
	}
	for _, name := range leaseBound {
		if _, given := i[name]; !given {
			out[name] = intervalTable[name].Default + extra
		}
	}
	return out
}

// Validate rejects unknown names and durations that are not positive.
func (i Intervals) Validate() error {
	var errs []string
	for _, name := range slices.Sorted(maps.Keys(i)) {
		if _, ok := intervalTable[name]; !ok {
			errs = append(errs, fmt.Sprintf("intervals: no interval %q (known: %s)", name, strings.Join(IntervalNames(), ", ")))
		} else if i[name] <= 0 {
			errs = append(errs, fmt.Sprintf("intervals: %s must be positive, not %s", name, i[name]))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// IntervalNames lists the intervals, sorted.
func IntervalNames() []string { return slices.Sorted(maps.Keys(intervalTable)) }

// IntervalTable is every interval with its default and what it bounds.
func IntervalTable() map[string]IntervalInfo { return maps.Clone(intervalTable) }
