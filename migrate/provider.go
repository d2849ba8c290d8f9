package migrate

import "github.com/handover-sh/handover/providers"

// Provider is the provider the spec's procedure moves controllers to. A
// program that registered none is wired wrong (it did not import the
// simulated cloud), which no input can cause.
func (s Spec) Provider() providers.Provider {
	p, err := providers.Lookup(providers.Simulated)
	if err != nil {
		panic(err)
	}
	return p
}
