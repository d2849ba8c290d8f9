package reports

import (
	"time"

	"github.com/handover-sh/handover/verify/checks"
)

// SetupCheck is the check a run that stopped before its checks fails: its
// subject is the phase that failed (images, cluster, ...).
const SetupCheck = "setup"

// Stopped is the report of a run that stopped in phase, between from and
// to, before its checks could judge anything: one failed result, whose
// violation is the error. Written with WriteAll, its JUnit has that one
// failed test case, so a CI gate sees a failure, never an empty pass, and
// the summary and page of an earlier run in the same directory are
// replaced rather than left to be read as this one's.
func Stopped(title, phase string, err error, from, to time.Time, about About) Report {
	msg := "stopped at " + phase + ", before any check judged: " + err.Error()
	res := checks.Result{Check: SetupCheck, Subject: phase, Summary: msg,
		Violations: []checks.Violation{{From: from, To: to, Message: err.Error()}}}
	return Report{Title: title, Start: from, End: to, Results: []checks.Result{res}, About: about}
}
