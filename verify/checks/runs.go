package checks

import (
	"errors"
	"fmt"

	"github.com/handover-sh/handover/timeline"
)

// CheckProcedures: each procedure on the timeline completed. A procedure
// is judged by its last run, so one interrupted and resumed to the end
// passes; one whose last run failed, was interrupted or never ended fails
// with the runner's message. Without this, a rehearsal stopped half-way
// would show only the green checks of what it got through. The steps are
// held to what a run writes (timeline.CheckRuns: each begun and ended
// once, in order and as the run declares them, a failed one failing its
// run), so a run.end ok over steps that say otherwise fails its procedure.
func CheckProcedures(evs []timeline.Event, _ Config) []Result {
	out := procedures(evs)
	var le *timeline.LineError
	if err := timeline.CheckRuns(evs); errors.As(err, &le) {
		return inconsistent(out, evs, le)
	}
	return out
}

// inconsistent fails the procedure of the run where the steps stop being
// what a run writes (the first procedure's when no run holds it).
func inconsistent(out []Result, evs []timeline.Event, le *timeline.LineError) []Result {
	e := evs[le.Line-1]
	title, start := "", e
	for _, s := range evs[:le.Line] {
		if s.Kind == timeline.RunStart {
			title, start = s.Message, s
		}
	}
	v := Violation{From: start.Time, To: e.Time, Sources: []string{"runner"},
		Message: fmt.Sprintf("its steps are not what a run writes: event %d of the timeline: %v", le.Line, le.Err)}
	for i := range out {
		if out[i].Subject == title || (title == "" && i == 0) {
			out[i] = result(Procedure, out[i].Subject, []Violation{v}, "steps inconsistent", nil)
			return out
		}
	}
	return append(out, result(Procedure, title, []Violation{v}, "steps inconsistent", nil))
}

// procedures judges each procedure by its last run's end.
func procedures(evs []timeline.Event) []Result {
	var order []string
	last := map[string]*timeline.Event{} // a procedure's last run.end; nil while a run is open
	starts := map[string]timeline.Event{}
	runs := map[string]int{}
	current := ""
	for i, e := range evs {
		switch e.Kind {
		case timeline.RunStart:
			current = e.Message
			if _, seen := runs[current]; !seen {
				order = append(order, current)
			}
			runs[current]++
			starts[current], last[current] = e, nil
		case timeline.RunEnd:
			if current != "" {
				last[current] = &evs[i]
			}
		}
	}
	if len(order) == 0 {
		return []Result{unproven(evs, Procedure, "procedure", "no run.start on the timeline: nothing says what ran")}
	}
	var out []Result
	for _, title := range order {
		out = append(out, procedureResult(title, starts[title], last[title], runs[title]))
	}
	return out
}

func procedureResult(title string, start timeline.Event, end *timeline.Event, runs int) Result {
	of := ""
	if runs > 1 {
		of = fmt.Sprintf(" (run %d of %d)", runs, runs)
	}
	switch {
	case end == nil:
		return result(Procedure, title, []Violation{{From: start.Time, To: start.Time, Sources: []string{"runner"},
			Message: "the procedure did not finish" + of + ": its run has no end on the timeline (the run was killed or is still going)"}},
			"did not finish"+of, nil)
	case end.Outcome != timeline.OK:
		return result(Procedure, title, []Violation{{From: start.Time, To: end.Time, Sources: []string{"runner"},
			Message: "the procedure " + end.Outcome + of + ": " + end.Message}},
			end.Outcome+of, nil)
	}
	return result(Procedure, title, nil, "completed in "+end.Time.Sub(start.Time).Round(100e6).String()+of, nil)
}
