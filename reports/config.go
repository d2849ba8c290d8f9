package reports

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/handover-sh/handover/migrate/lint"
	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
)

// ConfigFor reads the migrated controllers from the timeline's run.start
// (the runner writes them) and the thresholds a rehearsal set, so a
// timeline re-renders on its own.
func ConfigFor(evs []timeline.Event) (checks.Config, error) {
	controllers := lint.Migratable
	for _, e := range evs {
		if e.Kind == timeline.RunStart && e.Attrs["controllers"] != "" {
			controllers = strings.Split(e.Attrs["controllers"], ",")
		}
	}
	cfg := checks.DefaultConfig(controllers)
	for _, e := range evs {
		if e.Kind != timeline.Thresholds {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(e.Attrs)) {
			if base, ok := strings.CutSuffix(name, checks.BasisSuffix); ok {
				if cfg.Basis == nil {
					cfg.Basis = map[string]string{}
				}
				cfg.Basis[base] = e.Attrs[name]
				continue
			}
			if err := cfg.Set(name, e.Attrs[name]); err != nil {
				return cfg, fmt.Errorf("the timeline's %s: %w", timeline.Thresholds, err)
			}
		}
	}
	return cfg, nil
}

// TitleFor names the runs on the timeline in order ("…; then …"): a
// rehearsal with rollback runs two procedures, a resumed run repeats one.
func TitleFor(evs []timeline.Event) string {
	var titles []string
	for _, e := range evs {
		if e.Kind == timeline.RunStart && e.Message != "" && (len(titles) == 0 || titles[len(titles)-1] != e.Message) {
			titles = append(titles, e.Message)
		}
	}
	if len(titles) == 0 {
		return "rehearsal"
	}
	return strings.Join(titles, "; then ")
}
