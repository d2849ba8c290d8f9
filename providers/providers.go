// Package providers is the meeting point of the procedures and the clouds
// whose controllers they move: what a procedure needs of a provider, as
// data, and the providers a program was built with. A provider registers
// itself (the simulated cloud's in simulate/cloudcluster); procedures look
// it up by name and import no provider.
package providers

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Provider is what the procedures need of the cloud whose controllers
// they move: its name and configuration as the managers and kubelets take
// them, the cloud-controller-manager's identity and RBAC, and its
// manifests in each form. Procedures reach a provider only through it, so
// a real provider's parts plug in without touching procedure code.
type Provider struct {
	// Name is the value of --cloud-provider (managers and kubelets).
	Name string
	// CloudConfigPath is the cloud configuration on every node: the
	// in-tree provider's (managers and kubelets of version N).
	CloudConfigPath string
	// CCMCloudConfigPath is the cloud-controller-manager's on every node
	// (the same file unless a user gives each side its own).
	CCMCloudConfigPath string
	// CCMUser is the user the cloud-controller-manager's kubeconfig names,
	// CCMLeaderLockingRole the Role in kube-system that lets it take its
	// own lease, and CCMRBAC the objects that grant both (kubectl apply).
	CCMUser, CCMLeaderLockingRole, CCMRBAC string
	// CCMStaticPodPath and CCMKubeconfigPath are where the static-pod form
	// and its kubeconfig go on a control plane.
	CCMStaticPodPath, CCMKubeconfigPath string
	// LeaderMigrationConfigMap carries the leader-migration configuration
	// to a workload's pods.
	LeaderMigrationConfigMap string
	// CCMWorkloadName names its DaemonSet or Deployment in kube-system.
	CCMWorkloadName string
	// CCMImage is the manager's image for a Kubernetes version.
	CCMImage func(version string) string
	// CCMKubeconfig issues the static pod's kubeconfig from a control
	// plane's controller-manager.conf and CA.
	CCMKubeconfig func(controllerManagerConf, caCert, caKey []byte) (string, error)
	// CCMStaticPod is the static-pod manifest: version, cluster name, pod
	// subnet, extra flags, and host files to mount (volume name → path).
	CCMStaticPod func(version, cluster, podSubnet string, args []string, files map[string]string) string
	// CCMManifest is the manager's workload manifest.
	CCMManifest func(CCMWorkloadInput) string
	// ImageCredentials are the kubelet flags that let a kubelet of a
	// version pull from the provider's registry (nil: that kubelet needs
	// none, or none exists); the files they name are on every node.
	ImageCredentials func(version string) map[string]string
	// RegistryImage is an image in the cloud's registry that a kubelet
	// pulls only with the credentials the cloud issues ("": the cloud has
	// no registry).
	RegistryImage func() string
	// Code names the code each side runs.
	Code Code
}

// The providers' names, one constant each: the simulated cloud's, and the
// clouds whose code or manager handover runs or imitates (for aws, also its
// --cloud-provider value).
const (
	Simulated = "simulated"
	AWS       = "aws"
	Azure     = "azure"
)

var providers = struct {
	sync.RWMutex
	m map[string]Provider
}{m: map[string]Provider{}}

// Register makes a provider available to the procedures under name.
func Register(name string, p Provider) {
	providers.Lock()
	defer providers.Unlock()
	providers.m[name] = p
}

// Lookup finds a registered provider.
func Lookup(name string) (Provider, error) {
	providers.RLock()
	defer providers.RUnlock()
	if p, ok := providers.m[name]; ok {
		return p, nil
	}
	names := make([]string, 0, len(providers.m))
	for n := range providers.m {
		names = append(names, n)
	}
	slices.Sort(names)
	return Provider{}, fmt.Errorf("no provider %q is registered (registered: %s): the program must import the package that registers it (simulate/cloudcluster for %q)",
		name, strings.Join(names, ", "), Simulated)
}

// CCMWorkloadInput is what a cloud-controller-manager workload's manifest
// is made of.
type CCMWorkloadInput struct {
	Form     string // DaemonSet or Deployment
	Replicas int    // a Deployment's
	// Version is the Kubernetes version whose manager runs; Cluster and
	// PodSubnet the cluster's name and pod network.
	Version, Cluster, PodSubnet string
	// Config is a leader-migration configuration, mounted at ConfigPath
	// from LeaderMigrationConfigMap ("": none).
	Config, ConfigPath string
	Args               []string // extra flags
}
