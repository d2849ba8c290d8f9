package migrate

import (
	"maps"
	"time"

	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/waits"
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

// The procedures' waits, in the one table of every package's (waits).
func init() {
	waits.Register("migrate",
		waits.Wait{Name: IntervalPoll, Default: time.Second, Doc: "how often a wait re-checks its condition"},
		waits.Wait{Name: IntervalLeaseGrant, Default: 30 * time.Second, Doc: "SubjectAccessReviews allow the managers the migration lease after a grant"},
		waits.Wait{Name: IntervalJoin, Default: 3 * time.Minute, Doc: "a joining control plane's Node becomes Ready (kubeadm join)"},
		waits.Wait{Name: IntervalWorkerJoin, Default: 4 * time.Minute, Doc: "a worker still joining writes its kubelet flags"},
		waits.Wait{Name: IntervalControlPlane, Default: 2 * time.Minute, Doc: "every manager static pod of a version runs after a join or upgrade"},
		waits.Wait{Name: IntervalManagerRestart, Default: 3 * time.Minute, Doc: "a rewritten manager manifest runs, and the controllers settle after a rolling restart"},
		waits.Wait{Name: IntervalKubeletRestart, Default: 2 * time.Minute, Doc: "a restarted kubelet renews its lease and its Node is Ready"},
		waits.Wait{Name: IntervalSingleOwner, Default: 2 * time.Minute, Doc: "after a removal, each migrated controller runs in exactly one manager"},
		waits.Wait{Name: IntervalMainLeaseHandoff, Default: time.Minute, Doc: "another instance takes a stopped manager's main lease (lease duration and retries)"},
		waits.Wait{Name: IntervalSwitch, Default: time.Minute, Doc: "every node runs the external cloud provider after the switch"},
		waits.Wait{Name: IntervalRollout, Default: 3 * time.Minute, Doc: "the cloud-controller-manager chart rolls out"},
		waits.Wait{Name: IntervalSettle, Default: 3 * time.Minute, Doc: "the controllers settle in one manager and every node has its ProviderID"},
		waits.Wait{Name: IntervalUndo, Default: 3 * time.Minute, Doc: "undoing a failed step"},
	)
}

// Intervals overrides intervals by name; the rest keep their defaults.
type Intervals map[string]time.Duration

// Of is the named interval.
func (i Intervals) Of(name string) time.Duration {
	if d, ok := i[name]; ok {
		return d
	}
	return waits.Default(name)
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
			out[name] = waits.Default(name) + extra
		}
	}
	return out
}

// Validate rejects unknown names and durations that are not positive.
func (i Intervals) Validate() error { return waits.Validate(i) }
