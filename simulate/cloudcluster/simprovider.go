package cloudcluster

import (
	"maps"
	"slices"
)

// SimulatedProviderPackage is the simulated cloud's Kubernetes provider.
const SimulatedProviderPackage = "github.com/handover-sh/handover/simulate/cloud/provider"

// SimImageCredentials are the kubelet flags of a version's kubelet for the
// simulated cloud's registry.
func SimImageCredentials(version string) map[string]string { return simImageCredentials(version) }

// HostFiles are a provider's host files (volume name → path) in volume
// name order, as the static pods mount them.
func HostFiles(files map[string]string) []HostFile {
	var hf []HostFile
	for _, name := range slices.Sorted(maps.Keys(files)) {
		hf = append(hf, HostFile{Name: name, Path: files[name]})
	}
	return hf
}
