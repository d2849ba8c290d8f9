package timeline

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Edits of a real rehearsal's timeline that no run can write: each is
// refused on the line where it stops being one.
func TestReadRefusesImpossibleRuns(t *testing.T) { refusedOnTheirLines(t, impossibleRuns()) }

// CheckRuns refuses the same runs in events that did not come through
// Read, but for lines written twice, which only Read sees.
func TestCheckRunsRefusesImpossibleRuns(t *testing.T) {
	real := decode(t, rehearsal(t, base()))
	if err := CheckRuns(real); err != nil {
		t.Fatal(err)
	}
	for _, tc := range impossibleRuns() {
		if strings.Contains(tc.name, "written twice") {
			continue
		}
		evs := tc.edit(append([]Event(nil), real...))
		err := CheckRuns(evs)
		want := fmt.Sprintf("timeline line %d: ", tc.line(evs))
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: got %v\nwant it to begin %q and say %q", tc.name, err, want, tc.says)
		}
	}
}

// step is the index of the event of kind naming step name.
func step(evs []Event, kind, name string) int {
	for i, e := range evs {
		if e.Kind == kind && e.Step == name {
			return i
		}
	}
	panic("no " + kind + " of " + name)
}

func without(evs []Event, drop ...int) []Event {
	var out []Event
	for i, e := range evs {
		if !contains(drop, i) {
			out = append(out, e)
		}
	}
	return out
}

func contains(is []int, i int) bool {
	for _, j := range is {
		if i == j {
			return true
		}
	}
	return false
}

func impossibleRuns() []badCase {
	lineOf := func(kind, name string) func([]Event) int {
		return func(evs []Event) int { return step(evs, kind, name) + 1 }
	}
	return []badCase{
		{name: "the last step failed, the run ended ok",
			edit: func(evs []Event) []Event { evs[step(evs, StepEnd, "settle")].Outcome = Failed; return evs },
			line: func(evs []Event) int { return find(evs, RunEnd, 0) + 1 },
			says: `run.end ok, but step "settle" ended failed on line`},
		{name: "a step failed, the run went on",
			edit: func(evs []Event) []Event { evs[step(evs, StepEnd, "grant")].Outcome = Failed; return evs },
			line: lineOf(StepStart, "enable-leader-migration"),
			says: `after step "grant" ended failed on line`},
		{name: "a step that never ended",
			edit: func(evs []Event) []Event { return without(evs, step(evs, StepEnd, "grant")) },
			line: lineOf(StepStart, "enable-leader-migration"),
			says: `while step "grant", begun on line 12, never ended`},
		{name: "the last step never ended",
			edit: func(evs []Event) []Event { return without(evs, step(evs, StepEnd, "settle")) },
			line: func(evs []Event) int { return find(evs, RunEnd, 0) + 1 },
			says: `run.end while step "settle", begun on line`},
		{name: "every observed event written twice",
			edit: func(evs []Event) []Event {
				var out []Event
				for _, e := range evs {
					out = append(out, e)
					if kindRules[e.Kind].observed {
						out = append(out, e)
					}
				}
				return out
			},
			line: func(evs []Event) int { return find(evs, Probe, 1) + 1 },
			says: "this probe repeats line"},
		{name: "a whole step removed: enable-leader-migration",
			edit: func(evs []Event) []Event {
				return without(evs, step(evs, StepStart, "enable-leader-migration"), step(evs, StepEnd, "enable-leader-migration"))
			},
			line: lineOf(StepStart, "settle"),
			says: `step.start of step "settle" as step 4 right after step "grant", step 2 on line`},
		{name: "the run's last step removed",
			edit: func(evs []Event) []Event {
				return without(evs, step(evs, StepStart, "settle"), step(evs, StepEnd, "settle"))
			},
			line: func(evs []Event) int { return find(evs, RunEnd, 0) + 1 },
			says: "the last that began was step 3 (enable-leader-migration) on line"},
		{name: "step indices scrambled",
			edit: func(evs []Event) []Event {
				for i := range evs {
					switch evs[i].Step {
					case "grant":
						evs[i].Index = 3
					case "enable-leader-migration":
						evs[i].Index = 2
					}
				}
				return evs
			},
			line: lineOf(StepStart, "grant"),
			says: `step.start of step "grant" as step 3 right after step "prepare", step 1`},
		{name: "a step the run does not declare",
			edit: func(evs []Event) []Event {
				evs[step(evs, StepStart, "grant")].Step = "grant-all"
				evs[step(evs, StepEnd, "grant")].Step = "grant-all"
				return evs
			},
			line: lineOf(StepStart, "grant-all"),
			says: `but its run declares step 2 (grant) there`},
		{name: "a step of another procedure",
			edit: func(evs []Event) []Event { evs[step(evs, StepStart, "grant")].Procedure = "rke2"; return evs },
			line: lineOf(StepStart, "grant"),
			says: `step.start names procedure "rke2", but its run (line`},
		{name: "a run dated 2001 that completed now",
			edit: func(evs []Event) []Event {
				back := evs[0].Time.Sub(time.Date(2001, 3, 4, 5, 6, 7, 0, time.UTC))
				for i := range find(evs, RunEnd, 0) {
					evs[i].Time = evs[i].Time.Add(-back)
				}
				return evs
			},
			line: func(evs []Event) int { return find(evs, RunEnd, 0) + 1 },
			says: "(2001-03-04T05:06:09Z): no run lasts more than 24h0m0s"},
	}
}
