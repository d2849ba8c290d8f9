package cloudcluster_test

// The providers' node-image components are theirs: the tests of this
// package see the aws rows once its package is built in.
import _ "github.com/handover-sh/handover/providers/all"
