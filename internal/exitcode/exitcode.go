// Package exitcode classes handover's failures by what a CI gate does with
// them, as `terraform plan -detailed-exitcode` and grep tell "ran and found
// a problem" from "could not run": a red verdict is the migration's
// problem, bad input the user's, a broken machine nobody's verdict. The
// place that knows the class wraps the error (its message unchanged); main
// exits with Of(err). Signals are not classed here: internal/interrupt
// exits 128 + the signal's number.
package exitcode

import "errors"

// Code is a process exit status.
type Code int

// The codes, one per class.
const (
	Green Code = 0
	// Red is also what an error nobody classed exits with.
	Red            Code = 1
	BadInput       Code = 2
	Infrastructure Code = 3
)

// Row is one code as the help and the docs explain it.
type Row struct {
	Code    Code
	Meaning string
}

// Table is every code, with its meaning; signals last.
var Table = []Row{
	{Green, "green: every check passed, or the command did what it was asked"},
	{Red, "red: a check or the procedure failed; also any failure not classed"},
	{BadInput, "bad input: a flag, argument, file or field refused; no such cluster; lint errors"},
	{Infrastructure, "infrastructure: Docker, the host, an image build, a cluster's setup"},
	{130, "interrupted: 128 + the signal (SIGINT 130, SIGTERM 143, SIGHUP 129)"},
}

// classed is an error with its class; its message is the error's own.
type classed struct {
	code Code
	err  error
}

func (e *classed) Error() string { return e.err.Error() }
func (e *classed) Unwrap() error { return e.err }

// Wrap classes err (nil stays nil). An error already classed keeps its
// class: the place nearest the failure knew best.
func Wrap(code Code, err error) error {
	var c *classed
	if err == nil || errors.As(err, &c) {
		return err
	}
	return &classed{code: code, err: err}
}

// ByKind classes err as code when it is one of kinds (errors.Is), and
// leaves it as it is otherwise: for a failure whose cause says whose it
// is, where the place that knows the cause cannot know the class (a
// cluster looked up by a name the user gave, or by one a run made).
func ByKind(code Code, err error, kinds ...error) error {
	for _, k := range kinds {
		if errors.Is(err, k) {
			return Wrap(code, err)
		}
	}
	return err
}

// AsBadInput classes err as bad input.
func AsBadInput(err error) error { return Wrap(BadInput, err) }

// AsInfrastructure classes err as a broken machine or setup.
func AsInfrastructure(err error) error { return Wrap(Infrastructure, err) }

// Of is the exit code for err: Green for nil, its class when classed,
// else Red (every failure exited 1 before failures were classed).
func Of(err error) Code {
	var c *classed
	switch {
	case err == nil:
		return Green
	case errors.As(err, &c):
		return c.code
	}
	return Red
}
