package reports

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/handover-sh/handover/verify/scalestat"
)

// WriteHTML writes a self-contained page: verdict, the answers and what
// failed, the SVG timeline, the results table and every violation's
// evidence.
func WriteHTML(w io.Writer, r Report) error {
	ids := anchors(r.Results)
	head, err := headerOf(r.Results, ids).html()
	if err != nil {
		return fmt.Errorf("rendering the header: %w", err)
	}
	var b strings.Builder
	verdict, color := "PASSED", "#2ca02c"
	if !r.Passed() {
		verdict, color = "FAILED", ColorViolation
	}
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>handover: %s</title>
<style>
body{font-family:sans-serif;margin:16px;color:#222}
table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}
.fail{color:%s;font-weight:bold}.verdict{font-size:20px;font-weight:bold;color:%s}
pre{background:#f6f6f6;padding:8px;font-size:12px}
.answers li.broken{color:%s}.answers li.notjudged{color:#8a5a00}
</style></head><body>
<h1>%s</h1>
<p class="verdict">%s</p>
<p>%s – %s UTC, %s</p>
%s%s%s<h2>Timeline</h2>
<div id="timeline">%s</div>
<details id="probes"><summary>Probes by target</summary>%s</details>
<h2>Checks</h2>
<table><tr><th>check</th><th>subject</th><th>result</th><th>summary</th></tr>
`, html.EscapeString(r.Title), ColorViolation, color, ColorViolation, html.EscapeString(r.Title), verdict,
		r.Start.UTC().Format("2006-01-02 15:04:05"), r.End.UTC().Format("15:04:05"), counts(r.Results), aboutHTML(r), head, costHTML(r), timelineSVG(r), probeDetailSVG(r))
	for _, res := range r.Results {
		mark := resultMark(res, "pass", `<span class="fail">FAIL</span>`, `<span class="fail">UNPROVEN</span>`, "skipped")
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			html.EscapeString(res.Check), html.EscapeString(res.Subject), mark, html.EscapeString(res.Summary))
	}
	b.WriteString("</table>\n")
	if s, ok := scalestat.Summarize(r.Events); ok {
		b.WriteString(scaleHTML(s))
	}
	b.WriteString(providerHTML(r.Events))
	for i, res := range r.Results {
		if res.Passed {
			continue
		}
		fmt.Fprintf(&b, "<h3 id=\"%s\">%s: %s</h3>\n<pre>%s</pre>\n", html.EscapeString(ids[i]), html.EscapeString(res.Check), html.EscapeString(res.Subject), html.EscapeString(evidenceText(res)))
	}
	b.WriteString("</body></html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

func aboutHTML(r Report) string {
	var out string
	for _, line := range []string{r.About.Line(), r.About.Likeness()} {
		if line != "" {
			out += `<p class="about">` + html.EscapeString(line) + ".</p>\n"
		}
	}
	return out
}

func costHTML(r Report) string {
	if cost := r.Cost(); cost != "" {
		return "<p>Cost to the machine: " + html.EscapeString(cost) + ".</p>\n"
	}
	return ""
}
