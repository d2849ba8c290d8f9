package reports

import (
	"fmt"
	"io"
	"strings"

	"github.com/handover-sh/handover/timeline"
	"github.com/handover-sh/handover/verify/checks"
	"github.com/handover-sh/handover/verify/scalestat"
)

// WriteMarkdown writes the summary: verdict, one row per check, the
// violations with their evidence, and the procedure's steps.
func WriteMarkdown(w io.Writer, r Report) error {
	var b strings.Builder
	verdict := "PASSED"
	if !r.Passed() {
		verdict = "FAILED"
	}
	fmt.Fprintf(&b, "# handover: %s\n\n**%s** — %s to %s (%s), %d checks, %d failed%s\n\n",
		r.Title, verdict, r.Start.UTC().Format("2006-01-02 15:04:05"), r.End.UTC().Format("15:04:05"),
		r.End.Sub(r.Start).Round(1e9), len(r.Results), failed(r), skippedNote(r))
	if about := r.About.Line(); about != "" {
		fmt.Fprintf(&b, "%s.\n\n", about)
	}
	if cost := r.Cost(); cost != "" {
		fmt.Fprintf(&b, "Cost of observing: %s.\n\n", cost)
	}
	b.WriteString("| check | subject | result | summary |\n|---|---|---|---|\n")
	for _, res := range r.Results {
		mark := resultMark(res, "pass", "**FAIL**", "skipped")
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", res.Check, res.Subject, mark, cell(res.Summary))
	}
	for _, res := range r.Results {
		for _, v := range res.Violations {
			fmt.Fprintf(&b, "\n### %s: %s\n\n%s\n", res.Check, res.Subject, v)
			if len(v.Sources) > 0 {
				fmt.Fprintf(&b, "\nsources: %s\n", strings.Join(v.Sources, ", "))
			}
			for _, e := range v.Evidence {
				fmt.Fprintf(&b, "- %s\n", e)
			}
		}
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

// resultMark picks the word for a result: passed, failed, or skipped (not
// judged for want of evidence the observation could not have).
func resultMark(res checks.Result, pass, fail, skipped string) string {
	switch {
	case !res.Passed:
		return fail
	case res.Skipped != "":
		return skipped
	}
	return pass
}

// skippedNote counts the results not judged, when there are any.
func skippedNote(r Report) string {
	n := 0
	for _, res := range r.Results {
		if res.Passed && res.Skipped != "" {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d not judged (evidence out of reach)", n)
}

func failed(r Report) int {
	n := 0
	for _, res := range r.Results {
		if !res.Passed {
			n++
		}
	}
	return n
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
