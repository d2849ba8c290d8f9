package rancher

import (
	"fmt"
	"strings"

	"github.com/handover-sh/handover/rehearsal"
	"github.com/handover-sh/handover/rehearsal/derived"
)

// YAML is the derived rehearsal file: a header of comments (the files,
// the edit and its runbook step, what is not carried), then the fields,
// each with where it came from. `handover rehearse --config` reads it.
func (d *Description) YAML() ([]byte, error) { return d.File().YAML() }

// File is the derived rehearsal file.
func (d *Description) File() derived.File {
	return derived.File{Config: d.Config, From: d.From, Header: d.header()}
}

// Rehearsal is the derived file as handover rehearse --config reads it:
// over the defaults.
func (d *Description) Rehearsal() (rehearsal.Config, error) {
	return d.File().Rehearsal("the derived rehearsal file")
}

// header is the file's opening comment.
func (d *Description) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "A rehearsal derived by handover describe from an %s", d.Before.Kind)
	if d.After == nil {
		fmt.Fprintf(&b, ":\n  %s\n", describeFile(d.Before))
	} else {
		fmt.Fprintf(&b, ", before and after an edit:\n  before: %s\n  after:  %s\n", describeFile(d.Before), describeFile(d.After))
	}
	if e := d.Edit; e != nil {
		b.WriteString(e.summary())
	}
	if len(d.Notes) > 0 {
		b.WriteString("\nNot carried, or carried changed:\n")
		for _, n := range d.Notes {
			b.WriteString("  - " + n.String() + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func describeFile(c *Cluster) string {
	var parts []string
	if c.Name.Text != "" {
		parts = append(parts, "cluster "+c.Name.Text)
	}
	if c.Version.Given != "" {
		parts = append(parts, c.Version.Given)
	}
	if p := c.kcmProvider().Text; p != "" {
		parts = append(parts, "cloud provider "+p)
	}
	if len(parts) == 0 {
		return c.Source
	}
	return c.Source + " (" + strings.Join(parts, ", ") + ")"
}

// summary says the edit: the runbook's steps it makes, each change with
// its step, and what it does out of the runbook's order.
func (e *Edit) summary() string {
	var b strings.Builder
	switch {
	case len(e.Changes) == 0:
		b.WriteString("\nThe files differ in nothing handover reads.\n")
		return b.String()
	case e.Runbook == "":
		b.WriteString("\nThe edit (no runbook of handover's for this cloud):\n")
	case len(e.Steps) == 0:
		fmt.Fprintf(&b, "\nThe edit is no step of %s:\n", e.Runbook)
	default:
		fmt.Fprintf(&b, "\nThe edit is %s of %s:\n", stepsText(e.Steps), e.Runbook)
	}
	for _, c := range e.Changes {
		step := "no step of the runbook"
		if c.Step != "" {
			step = "step " + c.Step + ": " + c.StepTitle
		}
		fmt.Fprintf(&b, "  - %s (%s) — %s\n", c.What, c.At, step)
	}
	for _, f := range e.Findings {
		b.WriteString("  ! " + f + "\n")
	}
	return b.String()
}

func stepsText(steps []string) string {
	if len(steps) == 1 {
		return "step " + steps[0]
	}
	return "steps " + strings.Join(steps[:len(steps)-1], ", ") + " and " + steps[len(steps)-1]
}
