// Package live derives a rehearsal from a running cluster, read-only: its
// versions, shape, cloud, and the controller managers as they run (flags,
// form, the leader-migration configurations the API can show). What the
// API cannot show is named with the flag that gives it, never guessed.
package live
