package timeline

import "fmt"

// The runner (migrate.Run) writes run.start, then each step's step.start
// and step.end (or step.skipped), then run.end; `handover observe` writes
// run.start and run.end around its window. A later process appends its
// runs to the same file: a run killed before its end is followed by the
// next run's start, which is why a run.start while a run is open is
// accepted.

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
	if s, open := r.open[e.Step]; e.Kind == StepEnd && open && e.Time.Before(s.at) {
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

// runs pairs each run.end with the run.start before it.
func (v *validator) runs(n int, e Event) error {
	switch e.Kind {
	case RunStart:
		v.starts[keyOf(e)] = n
		v.run = &runState{start: mark{n, e.Time, e.Kind}, open: map[string]mark{}, begun: map[string]int{}}
	case RunEnd:
		r := v.run
		switch {
		case r == nil:
			return fmt.Errorf("run.end with no run.start before it: there is no run to end")
		case r.ended > 0:
			return fmt.Errorf("run.end, but the run that started on line %d already ended on line %d", r.start.line, r.ended)
		}
		r.ended = n
	}
	return nil
}

// steps nests each step in a run, and pairs its step.end with its
// step.start; a run takes each step once (migrate's step names are unique
// in a procedure).
func (v *validator) steps(n int, e Event) error {
	if e.Kind != StepStart && e.Kind != StepEnd && e.Kind != StepSkipped {
		return nil
	}
	r := v.run
	switch {
	case r == nil:
		return fmt.Errorf("%s of step %q outside a run: no run.start before it", e.Kind, e.Step)
	case r.ended > 0:
		return fmt.Errorf("%s of step %q outside a run: the run that started on line %d ended on line %d", e.Kind, e.Step, r.start.line, r.ended)
	case e.Kind == StepEnd:
		if _, open := r.open[e.Step]; !open {
			return fmt.Errorf("step.end of step %q with no step.start of it in the run that started on line %d", e.Step, r.start.line)
		}
		delete(r.open, e.Step)
		return nil
	}
	if first, again := r.begun[e.Step]; again {
		return fmt.Errorf("%s of step %q, which already began on line %d of this run: a run takes each step once", e.Kind, e.Step, first)
	}
	r.begun[e.Step] = n
	if e.Kind == StepStart {
		r.open[e.Step] = mark{n, e.Time, e.Kind}
	}
	return nil
}
