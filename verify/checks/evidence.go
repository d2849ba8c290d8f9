package checks

import (
	"fmt"
	"time"

	"github.com/handover-sh/handover/timeline"
)

// A poller's sample may come late: each tick waits for its slowest request
// (a probe times out after 2 s) and a loaded 2-core host delays ticks by a
// second or two more (3.7 s was the longest on a default rehearsal). A
// longer silence while the procedure runs means the observer was blind.
const (
	holePeriods = 10
	minHole     = 5 * time.Second
)

// holeTolerance is the longest silence allowed of a poller sampling every
// period.
func holeTolerance(period time.Duration) time.Duration {
	if d := holePeriods * period; d > minHole {
		return d
	}
	return minHole
}

// scope says which instances an observer must sample.
type scope int

const (
	whole        scope = iota // one stream
	perManager                // every manager on every control plane, while the node exists
	perAPIServer              // the endpoint, and every control plane's API server while it exists
)

// need says how much evidence is required of an observer.
type need int

const (
	optional   need = iota // reported, never judged
	atLeastOne             // event-driven: at least one event on the timeline
	noHoles                // poller: every expected instance sampled, no hole over holeTolerance(period)
)

// observer is one source of evidence and what it owes the checks.
type observer struct {
	name  string
	unit  string // what one event is: "health sample"
	kinds []string
	probe string // for probe events, their "kind" attribute
	// period is how often the poller samples, as its observer.start
	// declares it in periodAttr; the value here is for timelines written
	// before observers declared their periods.
	period     time.Duration
	periodAttr string
	// reachAttr is the observer.start attribute by which the observers
	// declare this evidence out of reach by design, saying why; unreachable
	// is what they said (declared() reads it). Such evidence is not judged:
	// never passed, never failed for its absence.
	reachAttr, unreachable string
	scope                  scope
	need                   need
	why                    string // why at least one event is certain
}

// observers: the pollers must never fall silent while the procedure runs;
// the watches record only changes, but their informers' initial list
// records every watched lease and every Node, so at least one event is
// certain. Audit writes and cloud calls happen only when a controller acts,
// load-balancer probes only while a LoadBalancer Service exists (their
// check judges that), and the self-usage sampler is not always there.
var observers = []observer{
	{name: "health", unit: "health sample", kinds: []string{timeline.Health}, period: 500 * time.Millisecond, periodAttr: timeline.HealthEvery, scope: perManager, need: noHoles},
	{name: "metrics", unit: "metrics scrape", kinds: []string{timeline.Metrics}, period: time.Second, periodAttr: timeline.MetricsEvery,
		reachAttr: timeline.MetricsOutOfReach, scope: perManager, need: noHoles},
	{name: "api probes", unit: "API probe", kinds: []string{timeline.Probe}, probe: "api", period: 500 * time.Millisecond, periodAttr: timeline.ProbeEvery, scope: perAPIServer, need: noHoles},
	{name: "leases", kinds: []string{timeline.Lease}, need: atLeastOne, why: "the lease watch records every watched lease's holder as it starts"},
	{name: "nodes", kinds: []string{timeline.NodeAdded, timeline.NodeChanged, timeline.NodeDeleted}, need: atLeastOne,
		why: "the node watch records every Node as it starts"},
	{name: "api audit", kinds: []string{timeline.APIWrite}},
	{name: "managed writes", kinds: []string{timeline.ManagedWrite}},
	{name: "cloud audit", kinds: []string{timeline.CloudCall}},
	{name: "lb probes", kinds: []string{timeline.Probe}, probe: "lb"},
	{name: "self usage", kinds: []string{timeline.SelfUsage}},
}

// CheckEvidence: every observer the checks rely on produced evidence while
// the procedure ran (each run.start to its run.end). A check
// that finds nothing wrong in no evidence proves nothing: this one fails
// where an observer was blind, so a migration is never green on silence.
// Evidence the observation declared out of reach at its start (the
// managers' /metrics, given without --manager-ca) is not judged instead.
func CheckEvidence(evs []timeline.Event, _ Config) []Result {
	runs := runWindows(evs)
	cps := controlPlaneWindows(evs, runs)
	fixed, since, isFixed := fixedManagers(evs)
	var out []Result
	for _, o := range observers {
		o = o.declared(evs)
		samples := o.samples(evs)
		want := o.expected(cps, runs)
		if isFixed {
			want = o.expectedFixed(fixed, since, runs)
		}
		switch {
		case o.unreachable != "":
			out = append(out, notJudged(Evidence, o.name, o.unreachable))
		case o.need == noHoles && isFixed && len(want) == 0:
			out = append(out, notJudged(Evidence, o.name, fmt.Sprintf("no %s instance was given to sample; the checks that need it say so", o.unit)))
		case o.need == noHoles:
			out = append(out, o.coverage(samples, want, runs, o.unanswered(evs, runs)))
		case o.need == atLeastOne:
			out = append(out, o.present(samples, outer(runs)))
		default:
			out = append(out, result(Evidence, o.name, nil, fmt.Sprintf("%d events (optional, not judged)", count(samples)),
				map[string]float64{"events": float64(count(samples))}))
		}
	}
	return out
}

// maxDeclaredPeriod bounds the period an observer may declare: a poller
// this slow could miss a whole hand-off between two samples.
const maxDeclaredPeriod = 2 * time.Second

// declared takes the period the observers declared on the timeline (the
// longest where several did, at most maxDeclaredPeriod), and whether any
// observing process declared the evidence out of reach.
func (o observer) declared(evs []timeline.Event) observer {
	if o.reachAttr != "" {
		o.unreachable = declaredOnStart(evs, o.reachAttr)
	}
	var longest time.Duration
	for _, e := range evs {
		if e.Kind != timeline.ObserverStart || o.periodAttr == "" {
			continue
		}
		if d, err := time.ParseDuration(e.Attrs[o.periodAttr]); err == nil && d > longest {
			longest = d
		}
	}
	if longest > 0 {
		o.period = min(longest, maxDeclaredPeriod)
	}
	return o
}

// samples are the observer's event times by instance, sorted.
func (o observer) samples(evs []timeline.Event) map[string][]time.Time {
	out := map[string][]time.Time{}
	for _, e := range evs {
		if o.matches(e) {
			k := o.instance(e)
			out[k] = append(out[k], e.Time)
		}
	}
	for _, ts := range out {
		sortTimes(ts)
	}
	return out
}

func (o observer) matches(e timeline.Event) bool {
	for _, k := range o.kinds {
		if e.Kind == k && (o.probe == "" || e.Attrs["kind"] == o.probe) {
			return true
		}
	}
	return false
}

func (o observer) instance(e timeline.Event) string {
	switch o.scope {
	case perManager:
		return e.Manager + "@" + e.Instance
	case perAPIServer:
		return e.Attrs["target"]
	}
	return ""
}

// present: an event-driven observer recorded at least one event.
func (o observer) present(samples map[string][]time.Time, run [2]time.Time) Result {
	n := count(samples)
	var vs []Violation
	if n == 0 {
		vs = append(vs, Violation{From: run[0], To: run[1], Sources: []string{o.name},
			Message: fmt.Sprintf("blind: the %s observer recorded nothing, though %s", o.name, o.why)})
	}
	return result(Evidence, o.name, vs, fmt.Sprintf("%d events (event-driven: at least one required)", n),
		map[string]float64{"events": float64(n)})
}

// outer spans every run.
func outer(runs [][2]time.Time) [2]time.Time {
	return [2]time.Time{runs[0][0], runs[len(runs)-1][1]}
}

func count(samples map[string][]time.Time) int {
	n := 0
	for _, ts := range samples {
		n += len(ts)
	}
	return n
}
