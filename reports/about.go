package reports

import "strings"

// About says what a report is of and which handover judged it; the caller
// knows (a rehearsal its plan, `report` only its own version). The JUnit
// suites carry it as properties, the summary and the page as a line under
// the verdict.
type About struct {
	Handover  string // the judging handover's version (internal/version)
	Procedure string
	From, To  string // Kubernetes versions N and N+1
	Provider  string // whose provider code the cloud controllers ran
	// Like is the rehearsal file of a cluster the run rehearsed on what
	// handover builds (rehearse --like), and Approximated what it had to
	// change of it, each a sentence.
	Like         string
	Approximated []string
}

// Property is one JUnit property.
type Property struct{ Name, Value string }

// Properties are a's fields as JUnit properties, in this order, those
// unknown left out.
func (a About) Properties() []Property {
	var out []Property
	for _, p := range []Property{{"handover-version", a.Handover}, {"procedure", a.Procedure},
		{"from", a.From}, {"to", a.To}, {"provider", a.Provider}, {"like", a.Like},
		{"approximated", strings.Join(a.Approximated, "; ")}} {
		if p.Value != "" {
			out = append(out, p)
		}
	}
	return out
}

// Line is a as the summary and the page say it under the verdict: "Judged
// by handover V; procedure P, N → N+1, provider X", the parts known; ""
// when none is.
func (a About) Line() string {
	var parts []string
	if a.Handover != "" {
		parts = append(parts, "Judged by handover "+a.Handover)
	}
	var run []string
	if a.Procedure != "" {
		run = append(run, "procedure "+a.Procedure)
		if len(parts) == 0 {
			run[0] = "Procedure " + a.Procedure
		}
	}
	if a.From != "" && a.To != "" {
		run = append(run, a.From+" → "+a.To)
	}
	if a.Provider != "" {
		run = append(run, "provider "+a.Provider)
	}
	if len(run) > 0 {
		parts = append(parts, strings.Join(run, ", "))
	}
	return strings.Join(parts, "; ")
}

// Likeness says which cluster's rehearsal file the run rehearsed, and
// what it approximated of it: "" for a run of no such file.
func (a About) Likeness() string {
	if a.Like == "" {
		return ""
	}
	if len(a.Approximated) == 0 {
		return "Rehearsed like " + a.Like + ", as the file says"
	}
	return "Rehearsed like " + a.Like + ", approximated: " + strings.Join(a.Approximated, "; ")
}
