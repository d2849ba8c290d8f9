package rancher

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/handover-sh/handover/rehearsal"
)

// YAML is the derived rehearsal file: a header of comments (the files,
// the edit and its runbook step, what is not carried), then the fields,
// each with where it came from. `handover rehearse --config` reads it.
func (d *Description) YAML() ([]byte, error) {
	raw, err := json.Marshal(d.Config)
	if err != nil {
		return nil, fmt.Errorf("the derived rehearsal: %w", err)
	}
	// JSON is YAML: parsed as a node tree, the fields keep the order of
	// the rehearsal file's struct and can carry comments.
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("the derived rehearsal: %w", err)
	}
	top := doc.Content[0]
	blockStyle(top)
	top.Content = dropEmpty(top.Content)
	for i := 0; i+1 < len(top.Content); i += 2 {
		key := top.Content[i]
		if from, ok := d.From[key.Value]; ok {
			key.HeadComment = from
		}
		for sub, from := range d.From {
			if k, side, ok := strings.Cut(sub, "."); ok && k == key.Value {
				commentKey(top.Content[i+1], side, from)
			}
		}
	}
	doc.HeadComment = d.header()
	var b bytes.Buffer
	enc := yamlv3.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("the derived rehearsal: %w", err)
	}
	return b.Bytes(), enc.Close()
}

// Rehearsal is the derived file as handover rehearse --config reads it:
// over the defaults.
func (d *Description) Rehearsal() (rehearsal.Config, error) {
	raw, err := d.YAML()
	if err != nil {
		return rehearsal.Config{}, err
	}
	return rehearsal.Parse(raw, "the derived rehearsal file")
}

// blockStyle writes n in YAML's block style, quoting only where needed.
func blockStyle(n *yamlv3.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// dropEmpty leaves out the mapping's keys whose values are empty mappings
// (the rehearsal file's sections that the files do not set).
func dropEmpty(kv []*yamlv3.Node) []*yamlv3.Node {
	var out []*yamlv3.Node
	for i := 0; i+1 < len(kv); i += 2 {
		if v := kv[i+1]; v.Kind == yamlv3.MappingNode && len(v.Content) == 0 {
			continue
		}
		out = append(out, kv[i], kv[i+1])
	}
	return out
}

// commentKey puts a comment on key in the mapping m.
func commentKey(m *yamlv3.Node, key, comment string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i].LineComment = comment
		}
	}
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
