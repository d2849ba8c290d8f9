package reports

import (
	"strings"

	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/verify/checks"
	"github.com/handover-sh/handover/verify/timeline"
)

// ConfigFor reads the migrated controllers from the timeline's run.start
// (the runner writes them), so a timeline re-renders on its own.
func ConfigFor(evs []timeline.Event) checks.Config {
	controllers := lint.Migratable
	for _, e := range evs {
		if e.Kind == timeline.RunStart && e.Attrs["controllers"] != "" {
			controllers = strings.Split(e.Attrs["controllers"], ",")
		}
	}
	return checks.DefaultConfig(controllers)
}

// TitleFor is the last run's title, or a default.
func TitleFor(evs []timeline.Event) string {
	title := "rehearsal"
	for _, e := range evs {
		if e.Kind == timeline.RunStart && e.Message != "" {
			title = e.Message
		}
	}
	return title
}
