package timeline

import "time"

// Kinds of event written by the migration runner.
const (
	StepStart   = "step.start"
	StepEnd     = "step.end"
	StepSkipped = "step.skipped"
	RunStart    = "run.start"
	RunEnd      = "run.end"
	// Thresholds records the checks' thresholds a rehearsal set, by name
	// (Attrs), for the checks of that timeline.
	Thresholds = "checks.thresholds"
)

// Outcomes of a step or a run.
const (
	OK          = "ok"
	Failed      = "failed"
	Interrupted = "interrupted"
	AlreadyDone = "already-done"
)

// Event is one line of the timeline. Source names the writer (runner, an
// observer); the other fields are filled as the kind of event needs.
type Event struct {
	Time       time.Time         `json:"time"`
	Source     string            `json:"source"`
	Kind       string            `json:"kind"`
	Procedure  string            `json:"procedure,omitempty"`
	Step       string            `json:"step,omitempty"`
	Index      int               `json:"index,omitempty"`
	Outcome    string            `json:"outcome,omitempty"`
	Manager    string            `json:"manager,omitempty"`
	Instance   string            `json:"instance,omitempty"`
	Controller string            `json:"controller,omitempty"`
	Node       string            `json:"node,omitempty"`
	Message    string            `json:"message,omitempty"`
	Attrs      map[string]string `json:"attrs,omitempty"`
}
