package migrate

import (
	"context"
	"time"
)

// Step is one action of a procedure.
type Step struct {
	Name  string // stable, kebab-case: --from-step and --until-step use it
	Title string // one line for people
	// Plan says what the step does on a real cluster: commands, flags,
	// files, manifests and the Rancher configuration it stands for.
	Plan []Item
	// Done reports that the step's postcondition already holds, so a
	// re-run skips it.
	Done func(ctx context.Context, e *Env) (bool, error)
	// Pre checks the step may run; an error stops the procedure before
	// anything changes.
	Pre func(ctx context.Context, e *Env) error
	Do  func(ctx context.Context, e *Env) error
	// Wait is the postcondition, polled after Do.
	Wait Wait
	// Undo reverts a step that failed half-way, where that is meaningful.
	Undo func(ctx context.Context, e *Env) error
}

// Wait is a named postcondition with its timeout.
type Wait struct {
	Name    string
	Timeout time.Duration
	Until   func(ctx context.Context, e *Env) (bool, error)
}

// Item is one entry of a step's plan.
type Item struct {
	Kind  ItemKind
	Title string
	Body  string
}

// ItemKind says how a plan item prints.
type ItemKind string

const (
	Command ItemKind = "command" // a shell command to run
	File    ItemKind = "file"    // a file's full content (Title is its path)
	Rancher ItemKind = "rancher" // the Rancher configuration the step stands for
	Note    ItemKind = "note"    // an explanation or a finding
)

// Procedure is an ordered list of steps.
type Procedure struct {
	Name    string
	Title   string
	Source  string // the document it follows
	Summary string
	Steps   []Step
	// Spec is what it was built from, completed (Build).
	Spec Spec
}

// names are its steps' names, in order.
func (p *Procedure) names() []string {
	out := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		out[i] = s.Name
	}
	return out
}

// Index is the position of the named step, or -1.
func (p *Procedure) Index(name string) int {
	for i, s := range p.Steps {
		if s.Name == name {
			return i
		}
	}
	return -1
}
