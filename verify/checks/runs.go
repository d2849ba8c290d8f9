package checks

import (
	"fmt"

	"github.com/handover-sh/handover/timeline"
)

// CheckProcedures: each procedure on the timeline completed. A procedure
// is judged by its last run, so one interrupted and resumed to the end
// passes; one whose last run failed, was interrupted or never ended fails
// with the runner's message. Without this, a rehearsal stopped half-way
// would show only the green checks of what it got through.
func CheckProcedures(evs []timeline.Event, _ Config) []Result {
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
