package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
	"github.com/handover-sh/handover/verify/scalestat"
)

// WriteMarkdown writes the summary: verdict, the answers and what failed,
// one row per check, the violations with their evidence, and the
// procedure's steps.
func WriteMarkdown(w io.Writer, r Report) error {
	var b strings.Builder
	verdict := "PASSED"
	if !r.Passed() {
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "# handover: %s\n\n**%s** — %s to %s (%s), %s\n\n",
		r.Title, verdict, r.Start.UTC().Format("2006-01-02 15:04:05"), r.End.UTC().Format("15:04:05"),
		r.End.Sub(r.Start).Round(1e9), counts(r.Results))
	for _, line := range []string{r.About.Line(), r.About.Likeness()} {
		if line != "" {
			fmt.Fprintf(&b, "%s.\n\n", line)
		}
	}
	ids := anchors(r.Results)
	b.WriteString(headerOf(r.Results, ids).markdown() + "\n")
	if cost := r.Cost(); cost != "" {
		fmt.Fprintf(&b, "Cost to the machine: %s.\n\n", cost)
	}
	b.WriteString("| check | subject | result | summary |\n|---|---|---|---|\n")
	for _, res := range r.Results {
		mark := resultMark(res, "pass", "**FAIL**", "**UNPROVEN**", "skipped")
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", res.Check, res.Subject, mark, cell(res.Summary))
	}
	for i, res := range r.Results {
		b.WriteString(evidenceMarkdown(res, ids[i]))
	}
	if s, ok := scalestat.Summarize(r.Events); ok {
		b.WriteString(scaleTables(s))
	}
	b.WriteString(providerMarkdown(r.Events))
	if steps := stepLines(r.Events); len(steps) > 0 {
		b.WriteString("\n## Procedure steps\n\n| step | outcome | start | seconds |\n|---|---|---|---|\n")
		b.WriteString(strings.Join(steps, ""))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// evidenceMarkdown is a result's evidence section, under a heading whose
// id the header links to; "" for a result with no violation.
func evidenceMarkdown(res checks.Result, id string) string {
	if len(res.Violations) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n### <a id=\"%s\"></a>%s: %s\n", id, res.Check, res.Subject)
	for _, v := range res.Violations {
		fmt.Fprintf(&b, "\n%s\n", v)
		if len(v.Sources) > 0 {
			fmt.Fprintf(&b, "\nsources: %s\n", strings.Join(v.Sources, ", "))
		}
		for _, e := range v.Evidence {
			fmt.Fprintf(&b, "- %s\n", e)
		}
	}
	return b.String()
}

// resultMark picks the word for a result: passed, failed, unproven (failed
// for want of evidence), or skipped (not judged: evidence the observation
// could not have, or nothing to judge).
func resultMark(res checks.Result, pass, fail, unproven, skipped string) string {
	switch {
	case res.Unproven():
		return unproven
	case !res.Passed:
		return fail
	case res.Skipped != "":
		return skipped
	}
	return pass
}

func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func stepLines(evs []timeline.Event) []string {
	start := map[string]timeline.Event{}
	var out []string
	for _, e := range evs {
		switch e.Kind {
		case timeline.StepStart:
			start[e.Step] = e
		case timeline.StepEnd:
			s := start[e.Step]
			out = append(out, fmt.Sprintf("| %s | %s | %s | %.1f |\n", e.Step, e.Outcome, s.Time.UTC().Format("15:04:05"), e.Time.Sub(s.Time).Seconds()))
		case timeline.StepSkipped:
			out = append(out, fmt.Sprintf("| %s | %s | %s | 0 |\n", e.Step, e.Outcome, e.Time.UTC().Format("15:04:05")))
		}
	}
	return out
}
