// Package capfilter implements an OCI runtime wrapper that removes from a
// container's capability sets every capability the host's bounding set lacks,
// then hands the invocation to the real runc.
//
// Some virtual machines run with a capability bounding set that misses
// capabilities (for example CAP_SYS_RESOURCE) which `--privileged` asks for.
// runc then fails with "unable to apply caps: operation not permitted". The
// wrapper makes privileged containers (kind nodes, and privileged pods inside
// them) start on such hosts by asking for no more than the host can grant.
package capfilter
