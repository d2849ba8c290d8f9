package lint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/handover-sh/handover/migrate/lmconfig"
)

// Facts that changed from one Kubernetes minor to another, each read from
// the upstream file its comment names (module versions as the Go module
// proxy serves them); history_source_test.go reads each again from that
// file.

// leaderMigrationGate is the feature gate leader migration once sat behind.
const leaderMigrationGate = "ControllerManagerLeaderMigration"

const (
	// gateLockedMinor: GA and locked to true from 1.24 (beta, default
	// true, in 1.23): k8s.io/controller-manager v0.24.0, v0.25.0, v0.26.13
	// pkg/features/kube_features.go and k8s.io/kubernetes v1.26.13
	// pkg/features/kube_features.go, both
	// `{Default: true, PreRelease: featuregate.GA, LockToDefault: true}`.
	// component-base v0.26.13 featuregate/feature_gate.go (SetFromMap)
	// accepts =true (it logs "Setting GA feature gate … It will be removed
	// in a future release.") and refuses =false ("cannot set feature gate
	// … feature is locked to true"); a value that is not a bool is refused
	// by Set ("missing bool value", "invalid value").
	gateLockedMinor = 24
	// gateRemovedMinor: the gate is in neither file from 1.27 on
	// (k8s.io/controller-manager v0.27.4 and k8s.io/kubernetes v1.27.4
	// pkg/features, and every later minor's); component-base v0.27.4 to
	// v0.32.6 featuregate/feature_gate.go refuses a gate it does not know
	// ("unrecognized feature gate"), so --feature-gates does not parse and
	// the manager does not start. (Its spec's comment says "remove in
	// 1.26"; 1.26 still has it.)
	gateRemovedMinor = 27
	// strictDecodeMinor: k8s.io/controller-manager
	// pkg/leadermigration/config/config.go, ReadLeaderMigrationConfiguration,
	// decodes the file with serializer.NewCodecFactory(cfgScheme)
	// .UniversalDecoder() up to v0.31.14 (lenient: an unknown field is
	// dropped, a key given twice keeps its last value) and with
	// NewCodecFactory(cfgScheme, serializer.EnableStrict) from v0.32.0: the
	// strict decoding error of an unknown or duplicate field is returned,
	// LeaderMigrationOptions.ApplyTo (pkg/leadermigration/options/options.go)
	// returns it and the manager does not start. (k8s.io/apimachinery
	// v0.32.6 pkg/runtime/serializer/json/json.go: lenient decoding is
	// YAMLToJSON then a case-sensitive unmarshal; strict adds
	// YAMLToJSONStrict, for the duplicates YAMLToJSON drops, and
	// UnmarshalStrict.)
	strictDecodeMinor = 32
)

// removedLocks are the lock types k8s.io/client-go's
// tools/leaderelection/resourcelock/interface.go (func New) refuses from a
// minor on: endpoints and configmaps from v0.24.0 (v0.23.17 still makes
// them), endpointsleases and configmapsleases from v0.28.0 (v0.27.4 still
// makes them). leases works at every minor; any other value is "Invalid
// lock-type". The managers create each lock with New and exit when it
// fails: kube-controller-manager's leaderElectAndRun
// (cmd/kube-controller-manager/app/controllermanager.go, k8s.io/kubernetes
// v1.26.13 to v1.32.6), cloud-controller-manager's (app/controllermanager.go,
// k8s.io/cloud-provider v0.26.13 to v0.32.6).
var removedLocks = map[string]int{"endpoints": 24, "configmaps": 24, "endpointsleases": 28, "configmapsleases": 28}

// Lock types of client-go and of a LeaderMigrationConfiguration.
const (
	leasesLock    = "leases"
	endpointsLock = "endpoints"
)

// migrationLocks are the resourceLock values the managers' check of a
// LeaderMigrationConfiguration takes, at every minor 1.26 to 1.32:
// ValidateLeaderMigrationConfiguration in k8s.io/controller-manager
// pkg/leadermigration/config/config.go ("resource Lock must be one of
// 'leases' or 'endpoints'"); ApplyTo refuses the file otherwise.
var migrationLocks = []string{leasesLock, endpointsLock}

// minorOf is the minor of a version of Kubernetes 1 ("v1.26.13" is 26); a
// later major counts as a minor past every one here.
func minorOf(v string) (int, bool) {
	var maj, min int
	if _, err := fmt.Sscanf(strings.TrimPrefix(v, "v"), "%d.%d", &maj, &min); err != nil || maj < 1 {
		return 0, false
	}
	if maj > 1 {
		return 1 << 20, true
	}
	return min, true
}

func minorAtLeast(v string, minor int) bool {
	m, ok := minorOf(v)
	return ok && m >= minor
}

// lockRefused says why client-go of version v refuses to make a lock of
// type lock, or "" if it makes it.
func lockRefused(v, lock string) string {
	if since, ok := removedLocks[lock]; ok {
		if minorAtLeast(v, since) {
			return fmt.Sprintf("%s locks were removed from client-go in 1.%d", lock, since)
		}
		return ""
	}
	if lock == leasesLock {
		return ""
	}
	return fmt.Sprintf("%q is not a lock type of client-go", lock)
}

// gateValue is the value --feature-gates gives the gate (the last one
// given, as the managers read the list), and whether it names it at all.
func gateValue(gates, gate string) (string, bool) {
	value, named := "", false
	for _, g := range strings.Split(gates, ",") {
		k, v, hasValue := strings.Cut(g, "=")
		if strings.TrimSpace(k) != gate {
			continue
		}
		value, named = "", true
		if hasValue {
			value = strings.TrimSpace(v)
		}
	}
	return value, named
}

// lintGate is what a manager of the side's version makes of
// --feature-gates naming ControllerManagerLeaderMigration.
func lintGate(s Side) Findings {
	value, named := gateValue(s.FeatureGates, leaderMigrationGate)
	if !named || !minorAtLeast(s.Version, gateLockedMinor) {
		// Before 1.24 the gate could be set either way; handover has
		// no facts about those versions.
		return nil
	}
	where := s.Component + " --feature-gates"
	drop := "drop " + leaderMigrationGate + " from --feature-gates; --enable-leader-migration is enough"
	on, err := strconv.ParseBool(value)
	switch {
	case minorAtLeast(s.Version, gateRemovedMinor):
		return Findings{{Error, where,
			fmt.Sprintf("%s went GA in 1.%d and was removed in 1.%d; %s %s refuses an unrecognized feature gate and does not start", leaderMigrationGate, gateLockedMinor, gateRemovedMinor, s.Component, s.Version),
			drop}}
	case err != nil:
		return Findings{{Error, where,
			fmt.Sprintf("%s=%s is not true or false: %s %s refuses the flag and does not start", leaderMigrationGate, value, s.Component, s.Version),
			drop}}
	case !on:
		return Findings{{Error, where,
			fmt.Sprintf("%s is GA and locked to true from 1.%d until its removal in 1.%d: %s %s refuses to set it to false and does not start", leaderMigrationGate, gateLockedMinor, gateRemovedMinor, s.Component, s.Version),
			drop}}
	}
	return Findings{{Warning, where,
		fmt.Sprintf("%s=true is accepted by %s %s (GA and locked to true from 1.%d: it changes nothing), but 1.%d removed the gate and refuses it", leaderMigrationGate, s.Component, s.Version, gateLockedMinor, gateRemovedMinor),
		fmt.Sprintf("drop %s from --feature-gates before the managers move to 1.%d; --enable-leader-migration is enough", leaderMigrationGate, gateRemovedMinor)}}
}

// fields of a LeaderMigrationConfiguration, for a fix.
const fields = "fields: kind, apiVersion, leaderName, resourceLock, controllerLeaders[].name, controllerLeaders[].component"

// lintDecoding is what the side's decoder makes of fields the type lacks
// and keys given twice: dropped or last-wins before 1.32, refused from 1.32.
func lintDecoding(s Side) Findings {
	c := s.Config
	strict := minorAtLeast(s.Version, strictDecodeMinor)
	var out Findings
	for _, f := range c.Unknown {
		problem := fmt.Sprintf("is not a field of %s: %s %s decodes the file leniently and drops it without a word, so what runs is not what is written", lmconfig.Kind, s.Component, s.Version)
		if strict {
			problem = fmt.Sprintf("is not a field of %s: %s %s decodes the file strictly (from 1.%d), refuses an unknown field and does not start", lmconfig.Kind, s.Component, s.Version, strictDecodeMinor)
		}
		out = append(out, Finding{Error, s.where(f), problem, "correct its spelling or remove it (" + fields + ")"})
	}
	for _, d := range c.Duplicates {
		if strict {
			out = append(out, Finding{Error, s.where(d),
				fmt.Sprintf("is given twice: %s %s decodes the file strictly (from 1.%d), refuses a duplicate field and does not start", s.Component, s.Version, strictDecodeMinor),
				"keep one"})
			continue
		}
		out = append(out, Finding{Warning, s.where(d),
			fmt.Sprintf("is given twice: %s %s decodes the file leniently and keeps the last value (the one checked here); from 1.%d the managers refuse the file", s.Component, s.Version, strictDecodeMinor),
			"keep one"})
	}
	return out
}

// lintMigrationLock is what the side makes of the configuration's
// resourceLock.
func lintMigrationLock(s Side) Findings {
	lock := s.Config.ResourceLock
	where := s.where("resourceLock")
	if !slices.Contains(migrationLocks, lock) {
		what := fmt.Sprintf("%q is not a lock type", lock)
		if _, ok := removedLocks[lock]; ok {
			what = fmt.Sprintf("%q is a client-go lock type, but not one a %s may name", lock, lmconfig.Kind)
		}
		return Findings{{Error, where,
			fmt.Sprintf("%s: the managers' check of the file takes only leases or endpoints, so %s %s refuses the file and does not start", what, s.Component, s.Version),
			"use resourceLock: leases"}}
	}
	if why := lockRefused(s.Version, lock); why != "" {
		return Findings{{Error, where,
			fmt.Sprintf("%s: %s %s takes the file (it checks only for leases or endpoints), takes its main lease and starts its other controllers, then exits when it comes to make the migration lock", why, s.Component, s.Version),
			"use resourceLock: leases"}}
	}
	return nil
}

// lintMainLock is what the side makes of --leader-elect-resource-lock, the
// type of its main lock.
func lintMainLock(s Side, where string) Findings {
	lock, ok := s.Flag("leader-elect-resource-lock")
	if !ok {
		return nil
	}
	if why := lockRefused(s.Version, lock); why != "" {
		return Findings{{Error, where,
			fmt.Sprintf("%s: %s %s exits when it makes its main lock, before it runs any controller", why, s.Component, s.Version),
			"use --leader-elect-resource-lock=leases (the default)"}}
	}
	return nil
}

// GateHistory says what a manager of version does with
// --feature-gates=ControllerManagerLeaderMigration=true, for a plan's note
// on why the task doc's gate is left out.
func GateHistory(version string) string {
	m, ok := minorOf(version)
	switch {
	case !ok:
		return "the gate was removed in 1.27 (GA and locked to true since 1.24)"
	case m >= gateRemovedMinor:
		return version + " refuses it as an unknown gate (GA and locked to true in 1.24, removed in 1.27)"
	case m >= gateLockedMinor:
		return version + " accepts it with a warning (GA and locked to true since 1.24), and 1.27 and later refuse it as unknown: left out, nothing lost"
	}
	return version + " has leader migration behind it (beta): set it"
}
