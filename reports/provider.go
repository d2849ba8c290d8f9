package reports

import (
	"fmt"
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

var (
	codeHeader   = []string{"side", "runs", "provider code"}
	actionHeader = []string{"action", "calls", "refused", "served"}
)

func providerMarkdown(evs []timeline.Event) string {
	code, actions := providerTables(evs)
	var b strings.Builder
	table := func(title string, header []string, rows [][]string) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n| %s |\n|%s\n", title, strings.Join(header, " | "), strings.Repeat("---|", len(header)))
		for _, r := range rows {
			cells := make([]string, len(r))
			for i, c := range r {
				cells[i] = cell(c)
			}
			fmt.Fprintf(&b, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	table("Provider code", codeHeader, code)
	table("Cloud API actions called", actionHeader, actions)
	return b.String()
}

func providerHTML(evs []timeline.Event) string {
	code, actions := providerTables(evs)
	var b strings.Builder
	table := func(title string, header []string, rows [][]string) {
		if len(rows) == 0 {
			return
		}
		fmt.Fprintf(&b, "<h2>%s</h2>\n<table><tr>", html.EscapeString(title))
		for _, h := range header {
			fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(h))
		}
		b.WriteString("</tr>\n")
		for _, r := range rows {
			b.WriteString("<tr>")
			for _, c := range r {
				fmt.Fprintf(&b, "<td>%s</td>", html.EscapeString(c))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
	}
	table("Provider code", codeHeader, code)
	table("Cloud API actions called", actionHeader, actions)
	return b.String()
}
