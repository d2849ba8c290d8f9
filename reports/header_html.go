package reports

import (
	"html/template"
	"strings"
)

// headerPage is the header on the page; html/template escapes every text
// and every link.
var headerPage = template.Must(template.New("header").Parse(`<ul class="answers">
{{range .Answers}}<li class="{{.Class}}"><b>{{.Question}}: {{.Headline}}</b>{{with .Detail}} — {{.}}{{end}}</li>
{{end}}</ul>
{{with .Failed}}<p><b>Failed</b> ({{len .}}):</p>
{{template "list" .}}{{end}}
{{- with .Unproven}}<p><b>Unproven</b> ({{len .}}; too little evidence to judge, which fails the run):</p>
{{template "list" .}}{{end}}
{{- with .NotJudged}}<p><b>Not judged</b> ({{$.NotJudgedSubjects}}), by reason:</p>
<ul>
{{range .}}<li>{{.Check}} on {{.Names}}: {{.Why}}</li>
{{end}}</ul>
{{end}}
{{- define "list"}}<ul>
{{range .}}<li>{{if .Anchor}}<a href="#{{.Anchor}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}: {{.Message}}</li>
{{end}}</ul>
{{end}}`))

// Class is the answer's CSS class on the page.
func (a answer) Class() string {
	return [...]string{answered: "held", notJudged: "notjudged", broken: "broken"}[a.Standing]
}

// html is the header on the page.
func (h header) html() (string, error) {
	var b strings.Builder
	err := headerPage.Execute(&b, h)
	return b.String(), err
}
