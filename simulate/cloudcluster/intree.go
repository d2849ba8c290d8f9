package cloudcluster

// InTreeKCM is an in-tree cluster's kube-controller-manager as kubeadm's
// ClusterConfiguration gives it: the provider with its cloud-config, read
// from the node, the cluster's name, and what differs by provider.
type InTreeKCM struct {
	Provider, CloudConfig, Cluster string
	// Routes: it configures the cloud's routes (--configure-cloud-routes).
	Routes bool
	// GateBack turns the in-tree providers back on, which 1.29 turned off
	// by default (DisableCloudProviders, beta).
	GateBack bool
	// Files are further host files it reads, by volume name.
	Files []HostVolume
}

// HostVolume is a host file a static pod reads where the host has it.
type HostVolume struct{ Name, Path string }

// Patch is the ClusterConfiguration patch.
func (k InTreeKCM) Patch() string {
	args := "\n    cloud-provider: " + k.Provider + "\n    cloud-config: " + k.CloudConfig + "\n    cluster-name: " + k.Cluster
	if k.Routes {
		args += "\n    configure-cloud-routes: \"true\""
	}
	if k.GateBack {
		args += "\n    feature-gates: DisableCloudProviders=false"
	}
	volumes := ""
	for _, v := range append([]HostVolume{{"cloud-config", k.CloudConfig}}, k.Files...) {
		volumes += "\n  - name: " + v.Name + "\n    hostPath: " + v.Path + "\n    mountPath: " + v.Path + "\n    readOnly: true\n    pathType: File"
	}
	return "kind: ClusterConfiguration\ncontrollerManager:\n  extraArgs:" + args + "\n  extraVolumes:" + volumes
}

// InTreeKubeletGates turns the in-tree providers and their image
// credential providers back on for the kubelets, which 1.29 turned off by
// default (both gates beta).
const InTreeKubeletGates = "kind: KubeletConfiguration\nfeatureGates:\n  DisableCloudProviders: false\n  DisableKubeletCloudCredentialProviders: false"
