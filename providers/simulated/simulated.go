// Package simulated is the default provider: the simulated cloud's own,
// whose Kubernetes provider (simulate/cloud/provider) handover compiles
// into every node image's managers and kubelets, and whose manager
// behaves as an imitated provider's when a cluster's cloud-config names
// one.
package simulated

import "github.com/handover-sh/handover/providers"

// Name is the provider's name (--provider).
const Name = "simulated"

func init() { providers.Register(Provider{}) }

// Provider is the simulated cloud's provider.
type Provider struct{}

func (Provider) Name() string         { return Name }
func (Provider) Runs() providers.Runs { return providers.HandoversCode }
