package timeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"
)

// tick is a writer's clock that moves on by step at each reading.
type tick struct {
	at   time.Time
	step time.Duration
}

func (c *tick) now() time.Time {
	c.at = c.at.Add(c.step)
	return c.at
}

// process is one handover process writing to a timeline with the
// package's Writer: stamped events take the writer's clock, observed ones
// carry the earlier time they happened at, as verify/observe writes them.
type process struct {
	t testing.TB
	w *Writer
	c *tick
}

func newProcess(t testing.TB, buf *bytes.Buffer, from time.Time) *process {
	c := &tick{at: from, step: 400 * time.Millisecond}
	w := NewWriter(buf)
	w.now = c.now
	return &process{t: t, w: w, c: c}
}

func (p *process) stamped(e Event) {
	p.t.Helper()
	if err := p.w.Write(e); err != nil {
		p.t.Fatal(err)
	}
}

func (p *process) observed(ago time.Duration, e Event) {
	p.t.Helper()
	e.Time = p.c.at.Add(-ago)
	p.stamped(e)
}

// observerStart is what the observers write first, with their periods.
func (p *process) observerStart() {
	p.stamped(Event{Source: "observer", Kind: ObserverStart,
		Attrs: map[string]string{HealthEvery: "500ms", MetricsEvery: "1s", ProbeEvery: "500ms"}})
}

// samples are a round of the observers' samples, some written late.
func (p *process) samples() {
	p.stamped(Event{Source: "health", Kind: Health, Manager: "kube-controller-manager", Instance: "cp-1",
		Attrs: map[string]string{"up": "true", "controllers": "service-lb-controller"}})
	p.stamped(Event{Source: "metrics", Kind: Metrics, Manager: "cloud-controller-manager", Instance: "cp-2",
		Attrs: map[string]string{"up": "false", "error": "connection refused", "down": "true"}})
	// A probe is written when its request returns, dated when it began.
	p.observed(1500*time.Millisecond, Event{Source: "probe", Kind: Probe,
		Attrs: map[string]string{"kind": "api", "target": "endpoint", "node": "", "ok": "true", "ms": "1480"}})
	// managedFields are dated to the second, by the cluster's clock: the
	// ingress and the finalizer facets moving in one update write the
	// same line twice.
	managed := Event{Source: "managed-fields", Kind: ManagedWrite, Manager: "cloud-controller-manager",
		Controller: "service-lb-controller", Attrs: map[string]string{"resource": "services/status", "name": "ns/web", "operation": "Update"}}
	p.observed(3*time.Second, managed)
	p.observed(3*time.Second, managed)
	// A manager's logged error is dated by its klog line, read later.
	p.observed(2*time.Second, Event{Source: "logs", Kind: ManagerError, Manager: "cloud-controller-manager", Instance: "cp-2",
		Attrs: map[string]string{"source": "route_controller.go:119", "message": "Couldn't reconcile node routes: error listing routes", "repeats": "2"}})
	p.stamped(Event{Source: "lease", Kind: Lease, Attrs: map[string]string{"lease": "cloud-provider-extraction-migration", "holder": "cp-1_x"}})
}

// run is migrate.Run's events for steps, the last ending as outcome;
// killed leaves the run without its end, as a process killed mid-way.
func (p *process) run(title string, outcome string, killed bool, steps ...string) {
	all := append([]string{"prepare"}, steps...)
	p.stamped(Event{Source: "runner", Kind: RunStart, Procedure: "taskdoc", Message: title,
		Attrs: map[string]string{"controllers": "service-lb-controller", "leaderName": "cloud-provider-extraction-migration",
			RunSteps: strings.Join(all, ","), RunFrom: all[0], RunUntil: all[len(all)-1]}})
	for i, s := range steps {
		if i == 0 {
			p.stamped(Event{Source: "runner", Kind: StepSkipped, Procedure: "taskdoc", Step: "prepare", Index: 1, Outcome: AlreadyDone})
		}
		p.stamped(Event{Source: "runner", Kind: StepStart, Procedure: "taskdoc", Step: s, Index: i + 2})
		p.samples()
		if killed && i == len(steps)-1 {
			return
		}
		o := OK
		if i == len(steps)-1 {
			o = outcome
		}
		p.stamped(Event{Source: "runner", Kind: StepEnd, Procedure: "taskdoc", Step: s, Index: i + 2, Outcome: o,
			Attrs: map[string]string{"seconds": "2.0"}})
	}
	p.stamped(Event{Source: "runner", Kind: RunEnd, Procedure: "taskdoc", Outcome: outcome})
}

// rehearsal is one process rehearsing a migration and its rollback.
func rehearsal(t testing.TB, from time.Time) []byte {
	var buf bytes.Buffer
	p := newProcess(t, &buf, from)
	p.stamped(Event{Source: "rehearsal", Kind: Thresholds, Attrs: map[string]string{"gap": "40s"}})
	p.observerStart()
	p.samples()
	p.run("Migrate", OK, false, "grant", "enable-leader-migration", "settle")
	p.run("Roll back", OK, false, "revert")
	p.stamped(Event{Source: "observer", Kind: Snapshot, Attrs: map[string]string{"services": "", "loadBalancers": ""}})
	p.stamped(Event{Source: "observer", Kind: ObserverStop})
	return buf.Bytes()
}

// base is when the test timelines begin: an hour ago, so that they are
// neither too old nor from the future on any machine the tests run on.
func base() time.Time { return time.Now().UTC().Add(-time.Hour).Truncate(time.Second) }

// decode reads lines without judging them.
func decode(t *testing.T, b []byte) []Event {
	t.Helper()
	var out []Event
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e Event
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// encode writes events with their own times through the Writer.
func encode(t *testing.T, evs []Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, e := range evs {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// find is the index of the n-th (from 0) event of kind.
func find(evs []Event, kind string, n int) int {
	for i, e := range evs {
		if e.Kind == kind {
			if n == 0 {
				return i
			}
			n--
		}
	}
	panic("no " + kind)
}

func TestRealTimelinesRead(t *testing.T) {
	for name, b := range map[string][]byte{
		"a rehearsal: migration and rollback, probes and managed writes late": rehearsal(t, base()),
		"observe --out twice into one file":                                   observedTwice(t),
		"a run killed, then resumed by another process":                       killedAndResumed(t),
		"a run interrupted, then resumed":                                     interruptedAndResumed(t),
		"two processes' lines crossing by less than writeSkew":                crossing(t),
	} {
		t.Run(name, func(t *testing.T) {
			evs, err := Read(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if err := invariants(evs, time.Now()); err != nil {
				t.Fatalf("read, but: %v", err)
			}
		})
	}
}

// observedTwice: `handover observe --out` appends each window as a run.
func observedTwice(t *testing.T) []byte {
	var buf bytes.Buffer
	from := base()
	for range 2 {
		p := newProcess(t, &buf, from)
		p.observerStart()
		p.stamped(Event{Source: "observer", Kind: RunStart, Message: "observed handover", Attrs: map[string]string{"controllers": "service-lb-controller"}})
		p.samples()
		p.stamped(Event{Source: "observer", Kind: RunEnd, Outcome: OK, Message: "observation window ended"})
		p.stamped(Event{Source: "observer", Kind: ObserverStop})
		from = p.c.at.Add(10 * time.Minute)
	}
	return buf.Bytes()
}

func killedAndResumed(t *testing.T) []byte {
	var buf bytes.Buffer
	p := newProcess(t, &buf, base())
	p.observerStart()
	p.run("Migrate", "", true, "grant")
	// A run of `handover migrate --observe=false` writes no observer.start.
	q := newProcess(t, &buf, p.c.at.Add(time.Minute))
	q.run("Migrate", OK, false, "grant")
	return buf.Bytes()
}

func interruptedAndResumed(t *testing.T) []byte {
	var buf bytes.Buffer
	p := newProcess(t, &buf, base())
	p.observerStart()
	p.run("Migrate", Interrupted, false, "grant")
	p.stamped(Event{Source: "observer", Kind: ObserverStop})
	q := newProcess(t, &buf, p.c.at.Add(time.Hour))
	q.observerStart()
	q.run("Migrate", OK, false, "grant", "enable-leader-migration")
	return buf.Bytes()
}

// crossing: two processes append to one file, each stamping before it
// writes, so a line may be dated a little before the one above it.
func crossing(t *testing.T) []byte {
	evs := decode(t, rehearsal(t, base()))
	i := find(evs, Lease, 0)
	latest := evs[find(evs, Metrics, 0)].Time // the last stamped event before it
	evs[i].Time = latest.Add(-writeSkew + 100*time.Millisecond)
	return encode(t, evs)
}

type badCase struct {
	name string
	edit func([]Event) []Event
	line func([]Event) int // the line the error names, in the edited events
	says string
}

func TestReadRefusesWhatNoRunWrites(t *testing.T) { refusedOnTheirLines(t, badCases()) }

// refusedOnTheirLines reads each case's edit of a rehearsal's timeline and
// expects a refusal naming the case's line and saying what it says.
func refusedOnTheirLines(t *testing.T, cases []badCase) {
	t.Helper()
	real := decode(t, rehearsal(t, base()))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			evs := tc.edit(append([]Event(nil), real...))
			_, err := Read(bytes.NewReader(encode(t, evs)))
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("want a *LineError, got %v", err)
			}
			want := fmt.Sprintf("timeline line %d: ", tc.line(evs))
			if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("got %q\nwant it to begin %q and say %q", err, want, tc.says)
			}
		})
	}
}

func badCases() []badCase {
	at := func(kind string, n int) func([]Event) int {
		return func(evs []Event) int { return find(evs, kind, n) + 1 }
	}
	attr := func(kind, key, value string) func([]Event) []Event {
		return func(evs []Event) []Event {
			e := &evs[find(evs, kind, 0)]
			e.Attrs = maps.Clone(e.Attrs) // the real timeline's map is shared
			e.Attrs[key] = value
			return evs
		}
	}
	return []badCase{
		{name: "run.end 30 s before its run.start",
			edit: func(evs []Event) []Event {
				evs[find(evs, RunEnd, 0)].Time = evs[find(evs, RunStart, 0)].Time.Add(-30 * time.Second)
				return evs
			},
			line: at(RunEnd, 0), says: "is 30s before its run.start on line"},
		{name: "step.end before its step.start",
			edit: func(evs []Event) []Event {
				evs[find(evs, StepEnd, 0)].Time = evs[find(evs, StepStart, 0)].Time.Add(-4 * time.Second)
				return evs
			},
			line: at(StepEnd, 0), says: `step.end of step "grant" at`},
		{name: "health up maybe", edit: attr(Health, "up", "maybe"),
			line: at(Health, 0), says: `health attribute "up" is "maybe": it is "true" or "false"`},
		{name: "probe ok yes", edit: attr(Probe, "ok", "yes"),
			line: at(Probe, 0), says: `probe attribute "ok" is "yes"`},
		{name: "probe of an unknown kind", edit: attr(Probe, "kind", "udp"),
			line: at(Probe, 0), says: `it is "api" or "lb"`},
		{name: "manager.error repeats 0", edit: attr(ManagerError, "repeats", "0"),
			line: at(ManagerError, 0), says: `manager.error attribute "repeats" is "0": it is a whole number above zero`},
		{name: "manager.error without its message",
			edit: func(evs []Event) []Event {
				e := &evs[find(evs, ManagerError, 0)]
				e.Attrs = map[string]string{"source": e.Attrs["source"]}
				return evs
			},
			line: at(ManagerError, 0), says: `manager.error has no attribute "message"`},
		{name: "run.end outcome maybe",
			edit: func(evs []Event) []Event { evs[find(evs, RunEnd, 0)].Outcome = "maybe"; return evs },
			line: at(RunEnd, 0), says: `run.end outcome "maybe"`},
		{name: "health without up",
			edit: func(evs []Event) []Event { evs[find(evs, Health, 0)].Attrs = nil; return evs },
			line: at(Health, 0), says: `health has no attribute "up"`},
		{name: "the timeline joined to itself",
			edit: func(evs []Event) []Event { return append(evs, evs...) },
			line: func(evs []Event) int { return len(evs)/2 + 1 }, says: "time runs backwards"},
		{name: "a run written twice",
			edit: func(evs []Event) []Event {
				from, to := find(evs, RunStart, 0), find(evs, RunEnd, 0)
				return append(evs, evs[from:to+1]...)
			},
			line: func(evs []Event) int { return find(evs, RunStart, 2) + 1 }, says: "run.start repeats the one on line"},
		{name: "a second run.start, the run open, dated before it",
			edit: func(evs []Event) []Event {
				i := find(evs, StepStart, 0)
				again := evs[find(evs, RunStart, 0)]
				again.Time = again.Time.Add(-time.Minute)
				again.Message = "Migrate again"
				return append(evs[:i:i], append([]Event{again}, evs[i:]...)...)
			},
			line: at(RunStart, 1), says: "time runs backwards: this run.start at"},
		{name: "dated year 1",
			edit: func(evs []Event) []Event {
				evs[0].Time = time.Date(1, 3, 4, 5, 6, 7, 0, time.UTC)
				return evs
			},
			line: func([]Event) int { return 1 }, says: "is before 2000"},
		{name: "dated year 9999",
			edit: func(evs []Event) []Event {
				evs[find(evs, Lease, 0)].Time = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
				return evs
			},
			line: at(Lease, 0), says: "more than 24h0m0s after this machine's clock"},
		{name: "shuffled: the run's end moved up among its steps, so a step seems outside its run",
			edit: func(evs []Event) []Event { return endMovedUp(undeclared(evs)) },
			line: func(evs []Event) int { return find(evs, RunEnd, 0) + 2 }, says: "time runs backwards"},
		// Where the run declares its steps, the moved end is refused itself.
		{name: "shuffled: the run's end moved up among the steps it declares",
			edit: endMovedUp, line: at(RunEnd, 0), says: "run.end ok, but its run declares steps up to step 4 (settle)"},
		{name: "step.end with no step.start",
			edit: func(evs []Event) []Event {
				i := find(evs, StepStart, 0)
				return append(evs[:i:i], evs[i+1:]...)
			},
			line: at(StepEnd, 0), says: `with no step.start of it`},
		{name: "run.end with no run.start",
			edit: func(evs []Event) []Event {
				i := find(evs, RunStart, 0)
				return append(evs[:i:i], evs[find(evs, RunEnd, 0):]...)
			},
			line: at(RunEnd, 0), says: "no run.start before it"},
	}
}

// endMovedUp moves the first run's end up before its second step.
func endMovedUp(evs []Event) []Event {
	end := evs[find(evs, RunEnd, 0)]
	i := find(evs, StepStart, 1)
	evs = append(evs[:find(evs, RunEnd, 0)], evs[find(evs, RunEnd, 0)+1:]...)
	return append(evs[:i:i], append([]Event{end}, evs[i:]...)...)
}

// undeclared drops the steps the first run declares, as a runner before
// runs declared them wrote it.
func undeclared(evs []Event) []Event {
	e := &evs[find(evs, RunStart, 0)]
	e.Attrs = maps.Clone(e.Attrs)
	delete(e.Attrs, RunSteps)
	return evs
}

// invariants are what every timeline Read accepts holds, checked apart
// from the validator: times in range, ends after their starts, no run
// written twice.
func invariants(evs []Event, now time.Time) error {
	seen := map[string]bool{}
	var run *Event
	steps := map[string]*Event{}
	for i := range evs {
		e := &evs[i]
		if e.Time.Year() < 2000 || e.Time.After(now.Add(24*time.Hour)) {
			return fmt.Errorf("event %d dated %s", i, e.Time)
		}
		switch e.Kind {
		case RunStart:
			k := fmt.Sprint(e.Time.UnixNano(), e.Source, e.Procedure, e.Message)
			if seen[k] {
				return fmt.Errorf("event %d: a run.start twice", i)
			}
			seen[k], run, steps = true, e, map[string]*Event{}
		case RunEnd:
			if run == nil || e.Time.Before(run.Time) {
				return fmt.Errorf("event %d: run.end before its start %v", i, run)
			}
		case StepStart:
			steps[e.Step] = e
		case StepEnd:
			if s := steps[e.Step]; s == nil || e.Time.Before(s.Time) {
				return fmt.Errorf("event %d: step.end before its start %v", i, s)
			}
		}
	}
	return nil
}
