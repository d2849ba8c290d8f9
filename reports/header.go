package reports

import (
	"fmt"
	"strings"

	"github.com/handover-sh/handover/verify/checks"
)

// header is what a summary and a page open with under the verdict, before
// the table of every check: the answers, then what failed and what was
// unproven, each leading to its evidence, then what was not judged and why.
type header struct {
	Answers           []answer
	Failed, Unproven  []problem
	NotJudged         []unjudged
	NotJudgedSubjects int
}

// problem is a failed or unproven result and the id of its evidence ("" if
// it has none to show).
type problem struct{ Name, Anchor, Message string }

// unjudged are the results of one check not judged for one reason.
type unjudged struct {
	Check, Why string
	Subjects   []string
}

// Names are the subjects as the header lists them.
func (u unjudged) Names() string {
	if len(u.Subjects) == 1 {
		return u.Subjects[0]
	}
	return fmt.Sprintf("%d subjects (%s)", len(u.Subjects), firstFew(u.Subjects, 3))
}

func headerOf(rs []checks.Result, ids []string) header {
	h := header{Answers: answers(rs)}
	h.Failed, h.Unproven = problems(rs, ids)
	h.NotJudged, h.NotJudgedSubjects = unjudgedOf(rs)
	return h
}

// problems are the failed results and the unproven ones, apart: the
// first were seen wrong, the others could not be proven for want of
// evidence. Both fail the run.
func problems(rs []checks.Result, ids []string) (failed, unproven []problem) {
	for i, r := range rs {
		if r.Passed {
			continue
		}
		p := problem{Name: r.Check + ": " + r.Subject, Message: firstMessage(r)}
		if len(r.Violations) > 0 {
			p.Anchor = ids[i]
		}
		if r.Unproven() {
			unproven = append(unproven, p)
		} else {
			failed = append(failed, p)
		}
	}
	return failed, unproven
}

// unjudgedOf groups the results not judged by check and reason, in the
// order the results come, and counts them.
func unjudgedOf(rs []checks.Result) ([]unjudged, int) {
	var out []unjudged
	at := map[[2]string]int{}
	n := 0
	for _, r := range rs {
		if !r.Passed || r.Skipped == "" {
			continue
		}
		n++
		k := [2]string{r.Check, r.Skipped}
		i, seen := at[k]
		if !seen {
			i, at[k] = len(out), len(out)
			out = append(out, unjudged{Check: r.Check, Why: r.Skipped})
		}
		out[i].Subjects = append(out[i].Subjects, r.Subject)
	}
	return out, n
}

// counts says how the results came out: "126 checks, 3 failed, 1
// unproven, 9 not judged" (unproven and not judged when there are any).
func counts(rs []checks.Result) string {
	failed, unproven, skipped := 0, 0, 0
	for _, r := range rs {
		switch {
		case r.Unproven():
			unproven++
		case !r.Passed:
			failed++
		case r.Skipped != "":
			skipped++
		}
	}
	s := fmt.Sprintf("%d checks, %d failed", len(rs), failed)
	if unproven > 0 {
		s += fmt.Sprintf(", %d unproven", unproven)
	}
	if skipped > 0 {
		s += fmt.Sprintf(", %d not judged", skipped)
	}
	return s
}

// anchors are the ids of the results' evidence sections, by index: check
// and subject in lower case, a dash for whatever else, so that a link to
// one holds from run to run; a second of the same name gets "-2".
func anchors(rs []checks.Result) []string {
	seen := map[string]int{}
	out := make([]string, len(rs))
	for i, r := range rs {
		id := slug(r.Check + " " + r.Subject)
		if seen[id]++; seen[id] > 1 {
			id = fmt.Sprintf("%s-%d", id, seen[id])
		}
		out[i] = id
	}
	return out
}

func slug(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

// markdown is the header in the summary.
func (h header) markdown() string {
	var b strings.Builder
	for _, a := range h.Answers {
		fmt.Fprintf(&b, "- **%s: %s**", a.Question, a.Headline)
		if a.Detail != "" {
			b.WriteString(" — " + a.Detail)
		}
		b.WriteString("\n")
	}
	writeProblems(&b, "**Failed** (%d):", h.Failed)
	writeProblems(&b, "**Unproven** (%d; too little evidence to judge, which fails the run):", h.Unproven)
	if len(h.NotJudged) > 0 {
		fmt.Fprintf(&b, "\n**Not judged** (%d), by reason:\n\n", h.NotJudgedSubjects)
		for _, u := range h.NotJudged {
			fmt.Fprintf(&b, "- %s on %s: %s\n", u.Check, u.Names(), u.Why)
		}
	}
	return b.String()
}

func writeProblems(b *strings.Builder, title string, ps []problem) {
	if len(ps) == 0 {
		return
	}
	b.WriteString("\n" + fmt.Sprintf(title, len(ps)) + "\n\n")
	for _, p := range ps {
		name := p.Name
		if p.Anchor != "" {
			name = "[" + p.Name + "](#" + p.Anchor + ")"
		}
		fmt.Fprintf(b, "- %s: %s\n", name, p.Message)
	}
}
