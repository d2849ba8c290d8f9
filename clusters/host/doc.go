// Package host prepares a machine to run handover's kind clusters: a running
// Docker engine, and, where the capability bounding set is short of what
// `--privileged` asks for, a capability-filtering runtime registered as
// Docker's default. Every step checks first and does nothing when the host is
// already fine, so Prepare is safe to run on every CI start.
package host
