package cloudcluster

import "github.com/handover-sh/handover/simulate/cloud/behaviour"

// Option changes how Create makes the cluster's cloud.
type Option func(*settings)

type settings struct{ profile, provider string }

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
func WithProfile(name string) Option { return func(s *settings) { s.profile = name } }

// ValidateProfile refuses a provider the simulated manager cannot behave
// as, naming those it can.
func ValidateProfile(name string) error {
	_, err := behaviour.Lookup(name)
	return err
}

// WithAWS makes the cluster's cloud answer as AWS too, and its kubelets
// and managers run the aws provider's own code against it.
func WithAWS() Option { return func(s *settings) { s.provider = AWS } }
