// Package checks turns a recorded timeline into verdicts. Every check is a
// pure function of the events, so it is tested on synthetic timelines and
// run on real ones alike.
//
// Health samples give each manager instance's activity per controller in
// two readings: "certain" intervals span consecutive samples that both
// show the controller running; "possible" intervals extend each run to the
// next sample that no longer shows it. Mutual exclusion uses certain
// intervals and coverage gaps use possible ones, so polling never raises a
// false alarm in either.
//
// No check passes on silence: CheckEvidence fails where an observer was
// blind while the procedure ran, and every other check fails as
// "unproven", naming what is missing, when it had nothing to judge.
package checks
