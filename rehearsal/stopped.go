package rehearsal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
//
// A rehearsal refused as bad input writes them only into an out holding
// no earlier run's files (earlierRun), and otherwise says so in its error.
// A refused command changes nothing, as kind and kubectl refuse a bad flag
// before touching anything: an earlier run's reports there may be the
// only evidence of an hour's rehearsal, and a typo must not replace them.
// A fresh out, as a CI job's is, still gets the refusal's junit.xml; where
// the earlier reports stay, the exit code (2) is what tells a gate.
// Moving them aside would keep both, but would rename files the user's
// scripts and links read, and litter out with a directory per typo.
func Stopped(out string, about reports.About, phase string, start time.Time, err error, logger log.Logger) error {
	if exitcode.Of(err) == exitcode.BadInput {
		if earlier := earlierRun(out); len(earlier) > 0 {
			return fmt.Errorf("%w (%s holds an earlier run's %s: left as they were, this run wrote no reports)", err, out, strings.Join(earlier, ", "))
		}
	}
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

// runFiles are what a run leaves in its out directory that a later
// refusal must not replace.
var runFiles = []string{reports.JUnitFile, reports.MarkdownFile, reports.HTMLFile, timelineFile}

// timelineFile is a run's timeline in its out directory.
const timelineFile = "timeline.jsonl"

// earlierRun names the files of runFiles that out holds.
func earlierRun(out string) []string {
	var found []string
	for _, name := range runFiles {
		if _, err := os.Lstat(filepath.Join(out, name)); err == nil {
			found = append(found, name)
		}
	}
	return found
}
