package rehearsal

import (
	"errors"
	"time"

	"sigs.k8s.io/kind/pkg/log"

	"github.com/handover-sh/handover/internal/exitcode"
	"github.com/handover-sh/handover/reports"
)

// phase is a part of a rehearsal before its checks judge: a failure in it
// is named by it in the reports of a run that stopped, and classed by it
// for the exit code.
type phase struct {
	name string
	code exitcode.Code
}

// The phases Run goes through, in order.
var (
	phasePrune   = phase{"prune", exitcode.Infrastructure} // what runs that died left behind
	phaseImages  = phase{"images", exitcode.Infrastructure}
	phaseFlags   = phase{"manager-flags", exitcode.BadInput} // the user's flags, asked of the binaries built
	phaseCluster = phase{"cluster", exitcode.Infrastructure}
	// The timeline, the cluster's handles, the load, the observers, the fleet.
	phaseSetup = phase{"setup", exitcode.Infrastructure}
	// The checks could not judge (the timeline unreadable): no verdict.
	phaseChecks = phase{"checks", exitcode.Red}
)

// fail classes err by ph and names ph as where the rehearsal stopped.
func (ph phase) fail(err error) error {
	if err == nil {
		return nil
	}
	return &stoppedError{phase: ph.name, err: exitcode.Wrap(ph.code, err)}
}

// stoppedError is an error with the phase it stopped a rehearsal in; its
// message is the error's own.
type stoppedError struct {
	phase string
	err   error
}

func (e *stoppedError) Error() string { return e.err.Error() }
func (e *stoppedError) Unwrap() error { return e.err }

// stoppedIn is the phase err names, or "rehearsal".
func stoppedIn(err error) string {
	var s *stoppedError
	if errors.As(err, &s) {
		return s.phase
	}
	return "rehearsal"
}

// Stopped writes into out the reports of a rehearsal that stopped in
// phase, started at start, before its checks judged (reports.Stopped): a
// CI gate reading its junit.xml sees the failure, never an empty pass.
// It returns err, for the caller to return; a report it could not write
// is only warned of, the error that stopped the run being the one to tell.
func Stopped(out string, about reports.About, phase string, start time.Time, err error, logger log.Logger) error {
	title := "rehearsal"
	if about.Procedure != "" {
		title += " of " + about.Procedure
	}
	r := reports.Stopped(title, phase, err, start, time.Now(), about)
	if werr := reports.WriteAll(out, r); werr != nil {
		logger.Warnf("the rehearsal stopped at %s, and its reports could not be written: %v", phase, werr)
		return err
	}
	logger.V(0).Infof("Stopped at %s; reports in %s (%s, %s, %s)", phase, out, reports.JUnitFile, reports.MarkdownFile, reports.HTMLFile)
	return err
}
