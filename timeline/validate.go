package timeline

import (
	"fmt"
	"time"
)

// earliest and maxAhead bound an event's time. No run of handover is
// dated before 2000: Kubernetes is from 2014, and a clock that far back
// (one never set) fails every TLS handshake with the cluster. A time more
// than maxAhead after the reader's clock is a clock far ahead or a time
// written by hand; a day leaves room for a timeline read on another machine
// whose clock is behind, or a cluster's clock ahead of ours.
var earliest = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

const maxAhead = 24 * time.Hour

// writeSkew is how far the time of an event stamped when written (a kind
// not marked observed in kindRules) may go back behind one written before
// it. One Writer stamps under its lock, so one process's lines are in time
// order; two handover processes appending to the same file each stamp
// before they write, so their lines may cross by a scheduling delay, and an
// NTP correction may step the wall clock back a little. A second covers
// both with room; shuffled lines or timelines joined out of order go back
// by far more, and a clock stepped back further leaves durations the
// checks would misjudge anyway.
const writeSkew = time.Second

// validator holds a timeline to what a run of handover can write, a line
// at a time.
type validator struct {
	now    time.Time
	latest mark            // the latest stamped event so far
	run    *runState       // the last run, ended or not; nil before one
	starts map[runKey]int  // each run.start, to its line
	lines  map[lineKey]int // each line once judges, to its line
	raw    []byte          // the line being judged
	rules  []func(int, Event) error
}

// mark is where and when an event was.
type mark struct {
	line int
	at   time.Time
	kind string
}

// runKey tells runs apart: two run.starts alike in all of it are one run
// written twice.
type runKey struct {
	at                         int64
	source, procedure, message string
}

func newValidator(now time.Time) *validator {
	v := &validator{now: now, starts: map[runKey]int{}, lines: map[lineKey]int{}}
	// The rules naming a precise fault come first (a run ending before it
	// starts, a run written twice), then the order of time, then how runs
	// and steps nest: the lines of a shuffled timeline are told as time
	// running backwards, not as a step outside its run.
	v.rules = []func(int, Event) error{v.inRange, ignoreLine(checkFields), v.endsAfterStart, v.runOnce,
		v.inOrder, v.once, v.runs, v.steps}
	return v
}

// newRunValidator judges how runs and steps nest alone, not the times
// against a clock nor the lines: CheckRuns.
func newRunValidator() *validator {
	v := &validator{starts: map[runKey]int{}}
	v.rules = []func(int, Event) error{v.endsAfterStart, v.runs, v.steps}
	return v
}

func ignoreLine(f func(Event) error) func(int, Event) error {
	return func(_ int, e Event) error { return f(e) }
}

// CheckRuns judges how the runs and steps of evs nest, as Read does, for
// events that may not have come through it: the first that no run writes
// is a *LineError whose Line is its place in evs, from 1.
func CheckRuns(evs []Event) error {
	v := newRunValidator()
	for i, e := range evs {
		if err := v.check(i+1, nil, e); err != nil {
			return &LineError{Line: i + 1, Err: err}
		}
	}
	return nil
}

// check judges the event on line n, raw as read, after every line before
// it.
func (v *validator) check(n int, raw []byte, e Event) error {
	v.raw = raw
	for _, rule := range v.rules {
		if err := rule(n, e); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) inRange(_ int, e Event) error {
	switch {
	case e.Time.Before(earliest):
		return fmt.Errorf("the event's time %s is before 2000: no run of handover is dated then (a clock never set, or a time written by hand)", stamp(e.Time))
	case e.Time.After(v.now.Add(maxAhead)):
		return fmt.Errorf("the event's time %s is more than %s after this machine's clock (%s): a clock far ahead, or a time written by hand",
			stamp(e.Time), maxAhead, stamp(v.now))
	}
	return nil
}

// inOrder: the events stamped when written never go back in time by more
// than writeSkew. Observed events and kinds handover does not write are
// not judged.
func (v *validator) inOrder(n int, e Event) error {
	if r, known := kindRules[e.Kind]; !known || r.observed {
		return nil
	}
	if l := v.latest; l.line > 0 && e.Time.Before(l.at.Add(-writeSkew)) {
		return fmt.Errorf("time runs backwards: this %s at %s is %s before the %s on line %d (%s), more than the %s by which handover's writers may be out of order (lines shuffled, timelines joined out of order, or the clock set back)",
			e.Kind, stamp(e.Time), l.at.Sub(e.Time), l.kind, l.line, stamp(l.at), writeSkew)
	}
	if v.latest.line == 0 || e.Time.After(v.latest.at) {
		v.latest = mark{n, e.Time, e.Kind}
	}
	return nil
}

// stamp writes a time as the timeline does.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
