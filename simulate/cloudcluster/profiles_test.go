package cloudcluster_test

// The aws provider registers its profiles, which validating an aws
// cluster looks up (validateAWS): a program has them through
// providers/all, this package's tests through this import.
import _ "github.com/handover-sh/handover/providers/aws"
