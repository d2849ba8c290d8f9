// Package faults injects the failures a migration must survive, at a set
// moment of the procedure: the manager holding the migration lease killed,
// a control-plane node stopped and started again, the cloud API throttling
// and failing calls or answering about instances late. Each fault is
// announced on the timeline (fault.start, fault.end) so the report shows it
// beside its consequences.
package faults
