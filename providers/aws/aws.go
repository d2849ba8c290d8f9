// Package aws is the aws provider: the in-tree aws provider of
// k8s.io/legacy-cloud-providers in the managers and kubelets of v1.26, and
// k8s.io/cloud-provider-aws's manager (and ecr-credential-provider) from
// v1.27, run against the simulated cloud's face of EC2, classic ELB and
// the instance metadata service (simulate/cloudserver/amazon). Its files
// wire that code into a cluster and its node images, serve its API, read
// its cloud-config and hold its profile; nothing outside this package
// knows its name.
package aws

import (
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
)

// Name is the provider's name: --provider, and --cloud-provider for its
// in-tree code.
const Name = "aws"

// The provider and its profiles are registered when a program imports it
// (providers/all), before anything looks either up.
func init() {
	providers.Register(Provider{})
	profiles.Register(awsProfiles...)
}

// Provider is the aws provider.
type Provider struct{}

func (Provider) Name() string         { return Name }
func (Provider) Runs() providers.Runs { return providers.OwnCode }
