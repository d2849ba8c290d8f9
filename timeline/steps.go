package timeline

import (
	"fmt"
	"slices"
	"strings"
)

// Attributes of the runner's run.start: the procedure's steps, whose
// positions (from 1) are the steps' Index, and the first and last of them
// the run takes (--from-step, --until-step).
const (
	RunSteps = "steps" // step names, comma-separated, in order
	RunFrom  = "from"
	RunUntil = "until"
)

// plan is the steps a run declares: their names, and the positions (from
// 1) of the first and the last it takes.
type plan struct {
	steps       []string
	from, until int
}

// planOf reads the steps a run.start declares; nil when it declares none
// (an observation window, or a run written before runs declared them).
func planOf(e Event) (*plan, error) {
	list, ok := e.Attrs[RunSteps]
	if !ok {
		return nil, nil
	}
	p := &plan{steps: strings.Split(list, ",")}
	for i, s := range p.steps {
		if s == "" || slices.Index(p.steps, s) < i {
			return nil, fmt.Errorf("run.start attribute %q is %q: the procedure's step names, each once, comma-separated", RunSteps, list)
		}
	}
	for _, b := range []struct {
		key string
		at  *int
	}{{RunFrom, &p.from}, {RunUntil, &p.until}} {
		*b.at = slices.Index(p.steps, e.Attrs[b.key]) + 1
		if *b.at == 0 {
			return nil, fmt.Errorf("run.start attribute %q is %q: one of the steps it declares, %s", b.key, e.Attrs[b.key], list)
		}
	}
	if p.from > p.until {
		return nil, fmt.Errorf("run.start declares steps from %q to %q, which comes before it", e.Attrs[RunFrom], e.Attrs[RunUntil])
	}
	return p, nil
}

// name says which step of the plan position i is.
func (p *plan) name(i int) string { return fmt.Sprintf("step %d (%s)", i, p.steps[i-1]) }

// takes: a run's step i is the one the plan names there, within its range,
// and its first step is the first of the range.
func (p *plan) takes(e Event, first bool) error {
	switch i := e.Index; {
	case i > len(p.steps):
		return fmt.Errorf("%s of step %q as step %d, but its run declares %d steps", e.Kind, e.Step, i, len(p.steps))
	case p.steps[i-1] != e.Step:
		return fmt.Errorf("%s of step %q as step %d, but its run declares %s there", e.Kind, e.Step, i, p.name(i))
	case i < p.from || i > p.until:
		return fmt.Errorf("%s of %s, outside the steps its run declares it takes: %s to %s", e.Kind, p.name(i), p.name(p.from), p.name(p.until))
	case first && i != p.from:
		return fmt.Errorf("%s of %s is its run's first, but the run declares it begins at %s, which never began", e.Kind, p.name(i), p.name(p.from))
	}
	return nil
}

// completed: a run ended ok took every step of its range.
func (p *plan) completed(last *stepMark) error {
	switch {
	case last == nil:
		return fmt.Errorf("run.end ok, but none of the steps its run declares (%s to %s) began", p.name(p.from), p.name(p.until))
	case last.index < p.until:
		return fmt.Errorf("run.end ok, but its run declares steps up to %s, and the last that began was %s on line %d: %s never began",
			p.name(p.until), p.name(last.index), last.line, p.name(last.index+1))
	}
	return nil
}

// steps nests each step in a run, one at a time and in order, and pairs
// its step.end with its step.start; a run takes each step once (migrate's
// step names are unique in a procedure) and stops at one that fails.
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
	case e.Index < 1:
		return fmt.Errorf("%s of step %q has no index: the runner numbers each step by its place in the procedure, from 1", e.Kind, e.Step)
	}
	if err := r.holds(e); err != nil {
		return err
	}
	if e.Kind == StepEnd {
		return r.end(n, e)
	}
	return r.begin(n, e)
}

// end pairs a step.end with the step begun.
func (r *runState) end(n int, e Event) error {
	s := r.open
	switch {
	case s == nil || s.name != e.Step:
		return fmt.Errorf("step.end of step %q with no step.start of it in the run that started on line %d", e.Step, r.start.line)
	case e.Index != s.index:
		return fmt.Errorf("step.end of step %q as step %d, but it began as step %d on line %d", e.Step, e.Index, s.index, s.line)
	}
	r.open = nil
	if e.Outcome != OK {
		r.failed = stepOf(n, e)
	}
	return nil
}

// begin takes a step.start or step.skipped: the next step, once, after the
// one before it ended ok.
func (r *runState) begin(n int, e Event) error {
	if first, again := r.begun[e.Step]; again {
		return fmt.Errorf("%s of step %q, which already began on line %d of this run: a run takes each step once", e.Kind, e.Step, first)
	}
	switch prev := r.last; {
	case r.open != nil:
		return fmt.Errorf("%s of step %q while step %q, begun on line %d, never ended: the runner ends each step before the next",
			e.Kind, e.Step, r.open.name, r.open.line)
	case r.failed != nil:
		return fmt.Errorf("%s of step %q after step %q ended %s on line %d: a step that does not end ok stops its run",
			e.Kind, e.Step, r.failed.name, r.failed.outcome, r.failed.line)
	case prev != nil && e.Index != prev.index+1:
		return fmt.Errorf("%s of step %q as step %d right after step %q, step %d on line %d: the runner takes the steps in order, one after another",
			e.Kind, e.Step, e.Index, prev.name, prev.index, prev.line)
	}
	if r.plan != nil {
		if err := r.plan.takes(e, r.last == nil); err != nil {
			return err
		}
	}
	r.begun[e.Step] = n
	r.last = stepOf(n, e)
	if e.Kind == StepStart {
		r.open = r.last
	}
	return nil
}
