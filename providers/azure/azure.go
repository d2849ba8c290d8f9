// Package azure is the azure provider as handover imitates it: the
// simulated cloud's manager behaving as cloud-provider-azure's does, as
// its profile (read from that provider's source) says. It runs none of
// Azure's code.
package azure

import (
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
)

// Name is the provider's name (--provider).
const Name = "azure"

// The provider and its profiles are registered when a program imports it
// (providers/all), before anything looks either up.
func init() {
	providers.Register(Provider{})
	profiles.Register(azureProfiles...)
}

// Provider is the azure imitation.
type Provider struct{}

func (Provider) Name() string         { return Name }
func (Provider) Runs() providers.Runs { return providers.Imitated }
