package derived

import "github.com/handover-sh/handover/providers"

// ProvidersOf are the providers of a cloud as clusters name it (a
// manager's --cloud-provider, a ProviderID's scheme): its own code first,
// then handover's simulated provider, then an imitation of it.
func ProvidersOf(cloud string) []providers.Provider {
	var out []providers.Provider
	for _, runs := range []providers.Runs{providers.OwnCode, providers.HandoversCode, providers.Imitated} {
		for _, p := range providers.All() {
			if p.Runs() == runs && providers.CloudName(p) == cloud {
				out = append(out, p)
			}
		}
	}
	return out
}
