package cloudcluster

import (
	"github.com/handover-sh/handover/simulate/cloud/behaviour"

	"github.com/handover-sh/handover/providers"
)

// Option changes how Create makes the cluster's cloud.
type Option func(*settings)

type settings struct {
	profile, provider string
	awsConfigs        *AWSCloudConfigs
	// secondInterfaces, noNodeIP: the machines' shape (nodeshape.go).
	secondInterfaces, noNodeIP bool
}

func newSettings(opts []Option) settings {
	var s settings
	for _, o := range opts {
		o(&s)
	}
	return s
}

// WithProfile makes the cloud-controller-manager behave as that
// provider's does (simulate/cloud/behaviour), through the
// cluster's cloud-config.
// A provider whose own code the cluster runs (ownCode) is not a behaviour
// but the cluster's provider.
func WithProfile(name string) Option {
	if o, ok := ownCode[name]; ok {
		return o
	}
	return func(s *settings) { s.profile = name }
}

// ownCode are the providers whose own code a cluster can run.
var ownCode = map[string]Option{providers.AWS: WithAWS()}

// ValidateProfile refuses a provider the simulated manager cannot behave
// as and whose own code no cluster runs, naming those it can.
func ValidateProfile(name string) error {
	if _, ok := ownCode[name]; ok {
		return nil
	}
	_, err := behaviour.Lookup(name)
	return err
}

// WithAWS makes the cluster's cloud answer as AWS too, and its kubelets
// and managers run the aws provider's own code against it.
func WithAWS() Option { return func(s *settings) { s.provider = providers.AWS } }
