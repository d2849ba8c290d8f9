package aws

import (
	"path/filepath"
	"time"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
)

// API: the aws provider's code calls EC2, classic ELB and the metadata
// service, which the simulated cloud serves as AWS does.
func (Provider) API() string { return Name }

// APIActions are the AWS actions the cloud answered since it started with
// the cluster (a new cluster gets a new cloud), from its call log.
func (Provider) APIActions(stateDir string) ([]providers.APIAction, error) {
	counts, err := amazon.SummarizeCalls(filepath.Join(stateDir, amazon.CallLogFile), time.Time{})
	if err != nil {
		return nil, err
	}
	return cloudcluster.APIActions(counts), nil
}
