// Package timeline is the one clock every part of a rehearsal writes to: the
// migration runner's step events and the observers' samples, as JSON lines
// that can be replayed by the checks and the reports.
package timeline
