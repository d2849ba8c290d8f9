// Package simulated is the default provider: the simulated cloud's own,
// whose Kubernetes provider (simulate/cloudprovider/provider) handover compiles
// into every node image's managers and kubelets, and whose manager
// behaves as an imitated provider's when a cluster's cloud-config names
// one.
package simulated

import (
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// Name is the provider's name (--provider).
const Name = "simulated"

// The provider and its profiles are registered when a program imports it
// (providers/all), before anything looks either up.
func init() {
	providers.Register(Provider{})
	profiles.Register(simulatedProfiles...)
}

// Provider is the simulated cloud's provider.
type Provider struct{}

func (Provider) Name() string         { return Name }
func (Provider) Runs() providers.Runs { return providers.HandoversCode }

// CloudName is the simulated provider's name in its clusters: the
// managers' --cloud-provider and the ProviderIDs' scheme.
func (Provider) CloudName() string { return cloudcluster.ProviderName }
