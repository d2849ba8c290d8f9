package timeline

import (
	"fmt"
	"time"
)

// The runner (migrate.Run) writes run.start, then each step's step.start
// and step.end (or step.skipped), then run.end; `handover observe` writes
// run.start and run.end around its window. A later process appends its
// runs to the same file: a run killed before its end is followed by the
// next run's start, which is why a run.start while a run is open is
// accepted.

// MaxRun is the longest a run lasts, from its run.start to its last
// event: a day. Every wait of the longest procedure, seven control planes
// replaced one at a time, runs out within a few hours at its named
// interval's default (migrate/intervals.go); a run or an observation
// window dated across more than a day is a clock stepped or a time
// written by hand, and its durations would be judged wrong.
const MaxRun = 24 * time.Hour

// runState is one run: from its run.start to its run.end (0 while open).
type runState struct {
	start     mark
	ended     int
	procedure string
	plan      *plan          // the steps its run.start declares; nil if none
	open      *stepMark      // the step begun and not ended
	last      *stepMark      // the last step begun or skipped
	failed    *stepMark      // the step that ended other than ok
	begun     map[string]int // steps started or skipped, to their line
}

// stepMark is where a step's event was, and what it said.
type stepMark struct {
	mark
	name    string
	index   int
	outcome string
}

func stepOf(n int, e Event) *stepMark {
	return &stepMark{mark{n, e.Time, e.Kind}, e.Step, e.Index, e.Outcome}
}

// endsAfterStart: a run.end is not dated before its run's start, nor a
// step.end before its step.start. The nesting is judged by runs and steps.
func (v *validator) endsAfterStart(_ int, e Event) error {
	r := v.run
	if r == nil || r.ended > 0 {
		return nil
	}
	if e.Kind == RunEnd && e.Time.Before(r.start.at) {
		return fmt.Errorf("run.end at %s is %s before its run.start on line %d (%s): a run cannot end before it starts",
			stamp(e.Time), r.start.at.Sub(e.Time), r.start.line, stamp(r.start.at))
	}
	if s := r.open; e.Kind == StepEnd && s != nil && s.name == e.Step && e.Time.Before(s.at) {
		return fmt.Errorf("step.end of step %q at %s is %s before its step.start on line %d (%s): a step cannot end before it starts",
			e.Step, stamp(e.Time), s.at.Sub(e.Time), s.line, stamp(s.at))
	}
	return nil
}

// runOnce: no run.start is written twice.
func (v *validator) runOnce(_ int, e Event) error {
	if e.Kind != RunStart {
		return nil
	}
	if first, again := v.starts[keyOf(e)]; again {
		return fmt.Errorf("run.start repeats the one on line %d (same time, source and title): the same run written twice, as in a timeline joined to itself", first)
	}
	return nil
}

func keyOf(e Event) runKey { return runKey{e.Time.UnixNano(), e.Source, e.Procedure, e.Message} }

// runs pairs each run.end with the run.start before it, and holds the
// run.end to what its steps were.
func (v *validator) runs(n int, e Event) error {
	switch e.Kind {
	case RunStart:
		p, err := planOf(e)
		if err != nil {
			return err
		}
		v.starts[keyOf(e)] = n
		v.run = &runState{start: mark{n, e.Time, e.Kind}, procedure: e.Procedure, plan: p, begun: map[string]int{}}
	case RunEnd:
		r := v.run
		switch {
		case r == nil:
			return fmt.Errorf("run.end with no run.start before it: there is no run to end")
		case r.ended > 0:
			return fmt.Errorf("run.end, but the run that started on line %d already ended on line %d", r.start.line, r.ended)
		}
		if err := r.holds(e); err != nil {
			return err
		}
		r.ended = n
	}
	return nil
}

// holds judges an event of the runner's within the run: the run's
// procedure, within MaxRun of its start, and for its run.end, what its
// steps were.
func (r *runState) holds(e Event) error {
	if e.Procedure != r.procedure {
		return fmt.Errorf("%s names procedure %q, but its run (line %d) is of %q: the runner writes one procedure's name on all of a run's events",
			e.Kind, e.Procedure, r.start.line, r.procedure)
	}
	if d := e.Time.Sub(r.start.at); d > MaxRun {
		return fmt.Errorf("%s at %s is %s after its run.start on line %d (%s): no run lasts more than %s (a clock stepped, or a time written by hand)",
			e.Kind, stamp(e.Time), d.Round(time.Second), r.start.line, stamp(r.start.at), MaxRun)
	}
	if e.Kind == RunEnd {
		return r.endHolds(e)
	}
	return nil
}

// endHolds: a run ends after its last step ended, as its failed step did,
// and, ended ok, after the last step it declares.
func (r *runState) endHolds(e Event) error {
	switch s := r.open; {
	case s != nil:
		return fmt.Errorf("run.end while step %q, begun on line %d, never ended: the runner ends a step before its run", s.name, s.line)
	case r.failed != nil && e.Outcome != r.failed.outcome:
		return fmt.Errorf("run.end %s, but step %q ended %s on line %d: a step that did not end ok ends its run so",
			e.Outcome, r.failed.name, r.failed.outcome, r.failed.line)
	case e.Outcome == OK && r.plan != nil:
		return r.plan.completed(r.last)
	}
	return nil
}
