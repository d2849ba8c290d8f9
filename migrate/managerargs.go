package migrate

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/migrate/lmconfig"
)

// ownFlags are the managers' flags handover sets itself, with why a user
// may not give them: the simulated cloud, the observers' way in, and leader
// migration, which --leader-migration-config gives.
var ownFlags = map[string]string{
	"enable-leader-migration":          "leader migration is what the procedure turns on and off: give a file or the built-in default with --leader-migration-config",
	"leader-migration-config":          "give it with --leader-migration-config kcm=FILE|default, ccm=FILE|default",
	"cloud-provider":                   "the managers run the simulated cloud's provider",
	"cloud-config":                     "the managers read the simulated cloud's configuration",
	"kubeconfig":                       "the managers' credentials are the cluster's",
	"authentication-kubeconfig":        "the managers' credentials are the cluster's",
	"authorization-kubeconfig":         "the managers' credentials are the cluster's",
	"bind-address":                     "the observers read /healthz and /metrics where kubeadm serves them",
	"secure-port":                      "the observers read /healthz and /metrics where kubeadm serves them",
	"authorization-always-allow-paths": "the observers read /healthz and /metrics without credentials",
	"leader-elect-resource-name":       "the observers and the procedure's waits read the managers' main leases by their default names",
	"leader-elect-resource-namespace":  "the observers and the procedure's waits read the leases in kube-system",
}

// OwnFlag says why handover sets a manager's flag itself, and "" for a
// flag a user may give: what reads a cluster's own flags leaves these out.
func OwnFlag(name string) string { return ownFlags[name] }

// args are the user's flags for a component's managers.
func (s Spec) args(component string) []string {
	if component == lmconfig.CCM {
		return s.CCMArgs
	}
	return s.KCMArgs
}

// validArgs rejects flags that are not --name=value, and those handover
// sets itself.
func (s Spec) validArgs() []string {
	var errs []string
	for _, side := range []struct {
		flag string
		args []string
	}{{"--kcm-arg", s.KCMArgs}, {"--ccm-arg", s.CCMArgs}} {
		for _, a := range side.args {
			name, _, ok := cmdline.Split(a)
			switch {
			case !ok:
				errs = append(errs, fmt.Sprintf("%s %q: write a manager flag as --name=value (or --name for true)", side.flag, a))
			case strings.HasSuffix(a, "="):
				errs = append(errs, fmt.Sprintf("%s %s: give the flag a value", side.flag, a))
			case ownFlags[name] != "":
				errs = append(errs, fmt.Sprintf("%s %s: handover sets --%s itself (%s)", side.flag, a, name, ownFlags[name]))
			}
		}
	}
	return errs
}

// argPairs are the user's flags as name and value, in order.
func argPairs(args []string) [][2]string {
	var out [][2]string
	for _, a := range args {
		if n, v, ok := cmdline.Split(a); ok {
			out = append(out, [2]string{n, v})
		}
	}
	return out
}

// Election is the slowest leader election among the managers taking part:
// how long a lease of a stopped manager outlives it, and how often a
// candidate retries.
func (s Spec) Election() lint.Election { return election(s.Sides()) }

func election(sides []lint.Side) lint.Election {
	e := lint.Side{}.Election()
	for _, sd := range sides {
		x := sd.Election()
		e.Lease, e.Retry = max(e.Lease, x.Lease), max(e.Retry, x.Retry)
	}
	return e
}

// Headroom is what a hand-off may take beyond the lease's expiry seen by a
// candidate retrying with jitter: the new holder starting its controllers
// and the health observer seeing them. It is not a measurement: it is what
// makes the default threshold 40 s (15 s + 4.4 × 2 s + 16.2 s); the
// task doc's hand-offs here took 15 – 18.5 s with the defaults.
const Headroom = 16200 * time.Millisecond

// retryWindows: a candidate retries every RetryPeriod × [1, 2.2] (client-go's
// JitterFactor 1.2) and times the lease's expiry from when it last saw it
// change, itself up to one jittered retry late: two windows of 2.2 retries.
const retryWindows = 4.4

// MaxGap is the coverage-gap threshold the timings in force give, and why;
// 0 when no leader-election timing is given (the checks' default holds).
func (s Spec) MaxGap() (time.Duration, string) {
	sides := s.Sides()
	e := election(sides)
	var given []string
	for _, sd := range sides {
		for _, p := range argPairs(sd.Args) {
			if slices.Contains(timingFlags, p[0]) {
				given = append(given, sd.Component+" --"+p[0]+"="+p[1])
			}
		}
	}
	if len(given) == 0 {
		return 0, ""
	}
	slices.Sort(given)
	given = slices.Compact(given)
	retries := time.Duration(retryWindows * float64(e.Retry))
	d := e.Lease + retries + Headroom
	return d, fmt.Sprintf("%s = lease %s + %.1f × retry %s + headroom %s, from the leader-election flags in force (%s)",
		d, e.Lease, retryWindows, e.Retry, Headroom, strings.Join(given, ", "))
}

// timingFlags are the leader-election flags the threshold follows.
var timingFlags = []string{"leader-elect-lease-duration", "leader-elect-renew-deadline", "leader-elect-retry-period"}

// extraArgsYAML prints flags as a ClusterConfiguration's extraArgs.
func extraArgsYAML(args []string) string {
	var b strings.Builder
	b.WriteString("controllerManager:\n  extraArgs:\n")
	for _, p := range argPairs(args) {
		fmt.Fprintf(&b, "    %s: %q\n", p[0], p[1])
	}
	return b.String()
}

// kcmArgsPlan shows the user's kube-controller-manager flags where a
// Rancher plan enables leader migration (the roll adds them).
func (s Spec) KCMArgsPlan() []Item {
	if len(s.KCMArgs) == 0 {
		return nil
	}
	return []Item{FlagsPlan(lmconfig.KCM, "add your flags (extra_args / machineSelectorConfig)", s.KCMArgs...)}
}
