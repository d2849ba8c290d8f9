package cloudcluster

import (
	"maps"
	"slices"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/providers"
)

// The simulated cloud as the procedures reach a provider: registered
// wherever this package is built in.
func init() { providers.Register(providers.Simulated, Provider()) }

// Provider is the simulated cloud's provider as the procedures take one.
func Provider() providers.Provider {
	return providers.Provider{
		Name:                     ProviderName,
		CloudConfigPath:          CloudConfigPath,
		CCMCloudConfigPath:       CloudConfigPath,
		CCMUser:                  CCMUser,
		CCMLeaderLockingRole:     CCMLeaderLockingRole,
		CCMRBAC:                  CCMRBAC,
		CCMStaticPodPath:         CCMStaticPodPath,
		CCMKubeconfigPath:        CCMKubeconfigPath,
		LeaderMigrationConfigMap: LeaderMigrationConfigMap,
		CCMWorkloadName:          "cloud-controller-manager",
		CCMImage:                 nodeimage.CCMImage,
		CCMKubeconfig:            CCMKubeconfig,
		CCMStaticPod: func(version, cluster, podSubnet string, args []string, files map[string]string) string {
			return CCMStaticPod(version, cluster, podSubnet, args, hostFiles(files)...)
		},
		Code: providers.Code{InTree: simulatedCode, CCM: simulatedCode},
		// The cloud's registry: external kubelets pull through the plugin.
		ImageCredentials: simImageCredentials,
		RegistryImage:    func() string { return EchoImageInSimRegistry },
		CCMManifest: func(in providers.CCMWorkloadInput) string {
			if in.Config == "" {
				return CCMManifest(in.Form, in.Replicas, in.Version, in.Cluster, in.PodSubnet, in.Args...)
			}
			return CCMManifestWithConfig(in.Form, in.Replicas, in.Version, in.Cluster, in.PodSubnet, in.Config, in.ConfigPath, in.Args...)
		},
	}
}

// simulatedCode is the simulated provider's package, which handover builds
// into every version's managers and kubelets.
func simulatedCode(string) string { return SimulatedProviderPackage }

// SimulatedProviderPackage is the simulated cloud's Kubernetes provider.
const SimulatedProviderPackage = "github.com/handover-sh/handover/simulate/cloud/provider"

// hostFiles are a provider's host files (volume name → path) in volume
// name order, as the static pods mount them.
func hostFiles(files map[string]string) []HostFile {
	var hf []HostFile
	for _, name := range slices.Sorted(maps.Keys(files)) {
		hf = append(hf, HostFile{Name: name, Path: files[name]})
	}
	return hf
}
