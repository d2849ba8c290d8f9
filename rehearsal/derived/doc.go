// Package derived writes a rehearsal derived from what a cluster is (its
// Rancher YAML, or the cluster itself): the rehearsal file's fields, each
// under a comment saying where it came from, below a header of what the
// rehearsal does not carry.
package derived
