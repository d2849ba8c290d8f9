package reports

import (
	"testing"

	"github.com/handover-sh/handover/timeline"
)

func TestTitleForNamesEachRunOnce(t *testing.T) {
	run := func(title string) timeline.Event {
		return timeline.Event{Source: "runner", Kind: timeline.RunStart, Message: title}
	}
	for _, c := range []struct {
		name string
		evs  []timeline.Event
		want string
	}{
		{"no run", nil, "rehearsal"},
		{"one run", []timeline.Event{run("Migrate")}, "Migrate"},
		{"resumed", []timeline.Event{run("Migrate"), run("Migrate")}, "Migrate"},
		{"with rollback", []timeline.Event{run("Migrate"), run("Roll back")}, "Migrate; then Roll back"},
	} {
		if got := TitleFor(c.evs); got != c.want {
			t.Errorf("%s: TitleFor = %q, want %q", c.name, got, c.want)
		}
	}
}
