package cloudcluster_test

// The providers register their profiles and node-image rows, which
// validating and configuring a cluster look up: a program has them through
// providers/all, this package's tests through this import.
import _ "github.com/handover-sh/handover/providers/all"
