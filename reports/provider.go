package reports

import (
	"html"
	"strings"

	"github.com/handover-sh/handover/timeline"
)

// providerTables are the provider code each side ran and, where that code
// speaks a provider's API, the actions it called: headers and rows.
func providerTables(evs []timeline.Event) (code, actions [][]string) {
	for _, e := range evs {
		switch e.Kind {
		case timeline.ProviderCode:
			code = append(code, []string{e.Attrs["side"], e.Attrs["runs"], e.Attrs["code"]})
		case timeline.CloudAPIAction:
			served := "yes"
			if e.Attrs["unimplemented"] == "true" {
				served = "NO"
			}
			actions = append(actions, []string{e.Attrs["service"] + ":" + e.Attrs["action"], e.Attrs["calls"], e.Attrs["refused"], served})
		}
	}
	return code, actions
}

// providerTableSet are the provider tables that have rows, in report
// order.
func providerTableSet(evs []timeline.Event) []table {
	code, actions := providerTables(evs)
	var out []table
	for _, t := range []table{{"Provider code", []string{"side", "runs", "provider code"}, code},
		{"Cloud API actions called", []string{"action", "calls", "refused", "served"}, actions}} {
		if len(t.rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}

func providerMarkdown(evs []timeline.Event) string {
	var b strings.Builder
	for _, t := range providerTableSet(evs) {
		b.WriteString("\n## " + t.title + "\n\n" + t.markdown())
	}
	return b.String()
}

func providerHTML(evs []timeline.Event) string {
	var b strings.Builder
	for _, t := range providerTableSet(evs) {
		b.WriteString("<h2>" + html.EscapeString(t.title) + "</h2>\n" + t.html())
	}
	return b.String()
}
