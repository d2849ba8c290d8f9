// Package azure is the azure provider: the in-tree azure provider of
// k8s.io/legacy-cloud-providers in the managers and kubelets of v1.29,
// and sigs.k8s.io/cloud-provider-azure's cloud-controller-manager,
// cloud-node-manager and acr-credential-provider from v1.30, run against
// the simulated cloud's face of Azure Resource Manager and the instance
// metadata service (simulate/cloudserver/azure). Where that code cannot
// run (the pairs whose managers handover builds no azure code for) the
// package also has the imitation: the simulated cloud's manager behaving
// as cloud-provider-azure's does, as its profile (read from that
// provider's source) says. Nothing outside this package knows either name.
package azure

import (
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
)

// Name is the provider's name: --provider, and --cloud-provider for its
// in-tree code.
const Name = "azure"

// ImitationName is the imitation's name (--provider): the profile it
// behaves as is Name's.
const ImitationName = "azure-imitation"

// The providers and their profiles are registered when a program imports
// the package (providers/all), before anything looks either up.
func init() {
	providers.Register(Provider{})
	providers.Register(Imitation{})
	profiles.Register(azureProfiles...)
}

// Provider is the azure provider, running its own code.
type Provider struct{}

func (Provider) Name() string         { return Name }
func (Provider) Runs() providers.Runs { return providers.OwnCode }

// Imitation is the simulated manager behaving as cloud-provider-azure's.
type Imitation struct{}

func (Imitation) Name() string         { return ImitationName }
func (Imitation) Runs() providers.Runs { return providers.Imitated }
func (Imitation) Imitates() string     { return Name }
