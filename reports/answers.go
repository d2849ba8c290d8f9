package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/handover-sh/handover/verify/checks"
)

// standing is how far a question was answered, worst last.
type standing int

const (
	answered  standing = iota // judged on everything it asks of, and it held
	notJudged                 // its checks did not run, lacked evidence or judged only some
	broken                    // a check found it did not hold
)

// answer is one question handover exists to answer, as the results
// answer it: the headline in a few words, then what backs it.
type answer struct {
	Question string
	Standing standing
	Headline string
	Detail   string
}

// answers are the questions a report opens with, in the order a reader
// asks them.
func answers(rs []checks.Result) []answer {
	return []answer{exclusionAnswer(rs), gapAnswer(rs), providerIDAnswer(rs),
		availabilityAnswer(rs, checks.APIAvailability, "API availability", "api probes"),
		availabilityAnswer(rs, checks.LBAvailability, "Load-balancer availability", "lb probes")}
}

// tally sorts one check's results by how they came out.
type tally struct {
	check                                  string
	all, passed, failed, unproven, skipped []checks.Result
	evidenceHoles                          []checks.Result // failed evidence the check relies on
}

func tallyOf(rs []checks.Result, check string, evidence ...string) tally {
	t := tally{check: check}
	for _, r := range rs {
		if r.Check == checks.Evidence && !r.Passed && slices.Contains(evidence, r.Subject) {
			t.evidenceHoles = append(t.evidenceHoles, r)
		}
		if r.Check != check {
			continue
		}
		t.all = append(t.all, r)
		switch {
		case r.Unproven():
			t.unproven = append(t.unproven, r)
		case !r.Passed:
			t.failed = append(t.failed, r)
		case r.Skipped != "":
			t.skipped = append(t.skipped, r)
		default:
			t.passed = append(t.passed, r)
		}
	}
	return t
}

// unanswered is the answer of a question its check could not answer at
// all: it did not run, or judged nothing (every subject unproven or not
// judged). ok is false when the check found something or judged some.
func (t tally) unanswered(question string) (answer, bool) {
	a := answer{Question: question, Standing: notJudged, Headline: "not judged"}
	switch {
	case len(t.failed) > 0 || len(t.passed) > 0:
		return answer{}, false
	case len(t.all) == 0:
		a.Detail = "the " + t.check + " check did not run"
	case len(t.unproven) > 0:
		a.Detail = "unproven, which fails the run: too little evidence on " + subjects(t.unproven)
	default:
		a.Detail = t.skipped[0].Skipped
	}
	return a, true
}

// settle lowers an answer that held to "not judged" where the check left
// subjects unproven or not judged, or the evidence it relies on has holes:
// it held only where seen. A broken answer stands: what was seen stays seen.
func (t tally) settle(a answer) answer {
	var caveats []string
	if len(t.unproven) > 0 {
		caveats = append(caveats, "unproven on "+subjects(t.unproven))
	}
	if len(t.skipped) > 0 {
		caveats = append(caveats, "not judged on "+subjects(t.skipped)+" ("+t.skipped[0].Skipped+")")
	}
	if len(t.evidenceHoles) > 0 {
		caveats = append(caveats, "the "+subjects(t.evidenceHoles)+" evidence has holes")
	}
	if len(caveats) == 0 {
		return a
	}
	if a.Standing == answered {
		a.Standing, a.Headline = notJudged, "not judged: "+a.Headline+" where seen"
	}
	a.Detail = joinNonEmpty("; ", a.Detail, strings.Join(caveats, "; "))
	return a
}

// subjects names results by subject, the first few.
func subjects(rs []checks.Result) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.Subject
	}
	return firstFew(names, 3)
}

// firstFew joins up to n names, then says how many more.
func firstFew(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
