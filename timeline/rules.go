package timeline

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// kindRule is what handover's writers put in one kind of event, read off
// the writers (migrate/runner.go, verify/observe, simulate/*, selfusage)
// and the fields the checks and reports interpret (verify/checks,
// verify/scalestat, reports). A kind not listed is not judged.
type kindRule struct {
	// observed: Time is when the thing happened, on its own clock (the
	// request's start, an audit log's, the cluster's managedFields), not
	// when the line was written; such events are written late and out of
	// order by design, so the order rule skips them.
	observed bool
	// repeats: the same line may be written twice (dated to the second
	// by the cluster's clock, two changes in that second look alike).
	repeats  bool
	outcomes []string // what Outcome may be; none: it has no outcome
	step     bool     // names a step
	attrs    []attrRule
}

// attrRule is one typed attribute: it may be left out unless required.
type attrRule struct {
	key      string
	required bool
	value    valueRule
}

// valueRule is a set of values, or a type of them, in words.
type valueRule struct {
	what string
	ok   func(string) bool
}

func oneOf(vs ...string) valueRule {
	return valueRule{what: quoteAll(vs), ok: func(v string) bool { return slices.Contains(vs, v) }}
}

var (
	boolean = oneOf("true", "false")
	// flag is an attribute written only as "true", when it holds.
	flag   = oneOf("true")
	millis = valueRule{what: "a whole number of milliseconds", ok: isMillis}
	period = valueRule{what: "a Go duration above zero, like 500ms", ok: isPeriod}
	// reason is free text saying why, written only when there is one.
	reason      = valueRule{what: "a reason in words, never empty", ok: func(v string) bool { return v != "" }}
	endOutcomes = []string{OK, Failed, Interrupted} // migrate's outcome()
)

// lbHealthAttrs are a load balancer's health check, when it has one, and
// the traffic the network drops.
var lbHealthAttrs = []attrRule{{HealthCheck, false, reason}, {HealthInterval, false, period}, {HealthTimeout, false, period},
	{HealthyThreshold, false, positive}, {UnhealthyThreshold, false, positive}, {LBDropped, false, reason},
	{LBDraining, false, drainingRule}}

// drainingRule is "off" or a timeout.
var drainingRule = valueRule{what: `"off" or a Go duration above zero`, ok: func(v string) bool { return v == "off" || isPeriod(v) }}

// positive is a whole number above zero.
var positive = valueRule{what: "a whole number above zero", ok: func(v string) bool { n, err := strconv.Atoi(v); return err == nil && n > 0 }}

// kindRules: one row per kind handover writes.
var kindRules = map[string]kindRule{
	RunStart:    {},
	RunEnd:      {outcomes: endOutcomes},
	StepStart:   {step: true},
	StepEnd:     {step: true, outcomes: endOutcomes},
	StepSkipped: {step: true, outcomes: []string{AlreadyDone}},
	Thresholds:  {},
	// verify/observe/health.go, metrics.go; "up" is read by checks/intervals.go.
	Health:  {attrs: []attrRule{{"up", true, boolean}, {"down", false, flag}}},
	Metrics: {attrs: []attrRule{{"up", true, boolean}, {"down", false, flag}}},
	Lease:   {},
	// verify/observe/pods.go; read by checks/exclusion.go.
	ManagerPods: {},
	// verify/observe/managerlogs.go: Time is the log line's; read by
	// checks/logged.go.
	ManagerError: {observed: true, attrs: []attrRule{{"source", true, reason}, {"message", true, reason}, {"repeats", false, positive}}},
	// verify/observe/probe.go: Time is the request's start; "ok" and
	// "kind" are read by checks/availability.go, "ms" by its probeEnd.
	Probe: {observed: true, attrs: []attrRule{{"kind", true, oneOf("api", "lb")}, {"ok", true, boolean}, {"ms", true, millis}}},
	// Audit logs (the API server's, the cloud's) and managedFields.
	APIWrite: {observed: true},
	// verify/observe/managed.go and events.go: managedFields' times and
	// an Event's are whole seconds, and one update moving two facets of
	// a field (a Service's ingress and its finalizer) is two alike.
	ManagedWrite: {observed: true, repeats: true},
	CloudCall:    {observed: true},
	NodeAdded:    {},
	NodeChanged:  {},
	// verify/observe/kube.go; read by checks/nodes.go.
	NodeDeleted: {attrs: []attrRule{{"instance", false, oneOf("exists", "gone")}}},
	// verify/observe/cloud.go; the health check read by
	// checks/availability.go.
	LBCreated: {attrs: lbHealthAttrs},
	LBChanged: {attrs: lbHealthAttrs},
	LBDeleted: {},
	Snapshot:  {},
	// verify/observe/observer.go declare(); read by checks/unproven.go,
	// checks/evidence.go and checks/exclusion.go.
	ObserverStart: {attrs: []attrRule{{CloudOutOfReach, false, flag}, {MetricsOutOfReach, false, reason},
		{HealthEvery, false, period}, {MetricsEvery, false, period}, {ProbeEvery, false, period}}},
	ObserverStop: {},
	// simulate/load marks a node whose instance it terminated; read by
	// checks/stalenode.go.
	NodeRemove: {attrs: []attrRule{{"instance", false, oneOf("terminated")}}},
	// simulate/load writes the time the deletion was asked for.
	ServiceDeleted:   {observed: true},
	ServiceIngress:   {},
	NodeDisruptStart: {},
	NodeDisruptEnd:   {},
	LoadStart:        {attrs: []attrRule{{PullEvery, false, period}, {PullLimit, false, period}}},
	LoadStop:         {},
	FaultStart:       {},
	FaultEnd:         {},
	SelfUsage:        {},
	ScaleStart:       {},
	// simulate/scale/join.go, fleet.go; read by verify/scalestat.
	ScaleJoin: {attrs: []attrRule{{"mode", true, oneOf("in-tree", "external")}, {"phase", true, oneOf("prepare", "procedure")}}},
	ScaleStop: {},
	// simulate/load/pulls.go; read by checks/imagepulls.go.
	ImagePull: {attrs: []attrRule{{"ok", true, boolean}, {"ms", true, millis}}},
}

// checkFields holds e to its kind's row.
func checkFields(e Event) error {
	r, known := kindRules[e.Kind]
	if !known {
		return nil
	}
	if err := checkOutcome(e, r.outcomes); err != nil {
		return err
	}
	if r.step && e.Step == "" {
		return fmt.Errorf("%s names no step", e.Kind)
	}
	for _, a := range r.attrs {
		if err := checkAttr(e, a); err != nil {
			return err
		}
	}
	return nil
}

func checkOutcome(e Event, outcomes []string) error {
	switch {
	case len(outcomes) == 0 && e.Outcome != "":
		return fmt.Errorf("%s has an outcome (%q), which only the end of a step or a run has", e.Kind, e.Outcome)
	case len(outcomes) > 0 && e.Outcome == "":
		return fmt.Errorf("%s has no outcome: it is one of %s", e.Kind, quoteAll(outcomes))
	case len(outcomes) > 0 && !slices.Contains(outcomes, e.Outcome):
		return fmt.Errorf("%s outcome %q is none that handover writes: it is one of %s", e.Kind, e.Outcome, quoteAll(outcomes))
	}
	return nil
}

func checkAttr(e Event, a attrRule) error {
	v, ok := e.Attrs[a.key]
	switch {
	case !ok && a.required:
		return fmt.Errorf("%s has no attribute %q: its writer always sets it, to %s", e.Kind, a.key, a.value.what)
	case ok && !a.value.ok(v):
		return fmt.Errorf("%s attribute %q is %q: it is %s", e.Kind, a.key, v, a.value.what)
	}
	return nil
}

func isMillis(v string) bool {
	n, err := strconv.ParseInt(v, 10, 64)
	return err == nil && n >= 0
}

func isPeriod(v string) bool {
	d, err := time.ParseDuration(v)
	return err == nil && d > 0
}

// quoteAll says "a", "b" or "c".
func quoteAll(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
