package reports

import (
	"html"
	"strings"
)

// table is a header and rows of cells, rendered as Markdown or HTML; a
// title, when set, heads its section.
type table struct {
	title  string
	header []string
	rows   [][]string
}

// markdown is the table in Markdown, a cell's "|" escaped.
func (t table) markdown() string {
	var b strings.Builder
	b.WriteString("| " + strings.Join(t.header, " | ") + " |\n|" + strings.Repeat("---|", len(t.header)) + "\n")
	for _, r := range t.rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = cell(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// html is the table in HTML, every cell escaped.
func (t table) html() string {
	var b strings.Builder
	b.WriteString("<table><tr><th>" + strings.Join(escaped(t.header), "</th><th>") + "</th></tr>\n")
	for _, r := range t.rows {
		b.WriteString("<tr><td>" + strings.Join(escaped(r), "</td><td>") + "</td></tr>\n")
	}
	return b.String() + "</table>\n"
}

func escaped(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = html.EscapeString(c)
	}
	return out
}
