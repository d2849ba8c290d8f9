package providers

import "time"

// The capabilities the procedures, the lint and the reports ask a provider
// for, each with As. A provider without one does without it: an imitated
// provider's manager is the default provider's, a provider whose code
// reads no machine shape refuses one, and so on.

// Managed is a provider whose cloud-controller-manager the procedures
// place: the default provider's and those whose own code runs. (An
// imitated provider's is the default one's, behaving as it.)
type Managed interface {
	Manager() Manager
}

// Manager is a provider's cloud-controller-manager as the procedures place
// it: its configuration as the managers and kubelets take it, its identity
// and RBAC, and its forms.
type Manager struct {
	// CloudProvider is the value of --cloud-provider (managers and
	// kubelets) that selects the provider's in-tree code.
	CloudProvider string
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
	// Forms makes the manager in each form.
	Forms ManagerForms
}

// ManagerForms makes a cloud-controller-manager in each form it runs in.
type ManagerForms interface {
	// Image is the manager's image for a Kubernetes version ("": the
	// version's node image carries none).
	Image(version string) string
	// Kubeconfig issues the static pod's kubeconfig from a control
	// plane's controller-manager.conf and CA.
	Kubeconfig(controllerManagerConf, caCert, caKey []byte) (string, error)
	// StaticPod is the static-pod manifest.
	StaticPod(StaticPodInput) string
	// Workload is the DaemonSet's or Deployment's manifest.
	Workload(WorkloadInput) string
	// NodeManager is the manifest of what initialises the Nodes of
	// external kubelets beside the manager, for a version ("": the manager
	// does): applied with the manager in any form (Workload's manifest
	// carries it too, as a chart does).
	NodeManager(version string) string
}

// StaticPodInput is what a cloud-controller-manager's static pod is made
// of.
type StaticPodInput struct {
	// Version is the Kubernetes version whose manager runs; Cluster and
	// PodSubnet the cluster's name and pod network.
	Version, Cluster, PodSubnet string
	Args                        []string          // extra flags
	Files                       map[string]string // host files to mount: volume name → path
}

// WorkloadInput is what a cloud-controller-manager workload's manifest is
// made of.
type WorkloadInput struct {
	Form     string // DaemonSet or Deployment
	Replicas int    // a Deployment's
	// Version is the Kubernetes version whose manager runs; Cluster and
	// PodSubnet the cluster's name and pod network.
	Version, Cluster, PodSubnet string
	// Config is a leader-migration configuration, mounted at ConfigPath
	// from LeaderMigrationConfigMap ("": none).
	Config, ConfigPath string
	Args               []string // extra flags
	// NoNodeManager leaves the chart's node manager out (a deliberate
	// mistake): its manager alone.
	NoNodeManager bool
}

// Coded is a provider that names the code each side of a migration runs,
// for the reports.
type Coded interface {
	// InTreeCode is the code built into a version's kube-controller-manager
	// and kubelets (module@version, or the simulated provider's package;
	// "" for a version without it).
	InTreeCode(version string) string
	// CCMCode is the cloud-controller-manager's of a version.
	CCMCode(version string) string
}

// Audited is a provider whose code calls a cloud API of its own, which the
// simulated cloud serves and records per action.
type Audited interface {
	// API names the API ("aws" for EC2, ELB and the metadata service).
	API() string
	// APIActions are the calls the cluster's cloud answered, per action,
	// read from the cloud's state directory.
	APIActions(stateDir string) ([]APIAction, error)
}

// APIAction is how often the cloud was called for one action.
type APIAction struct {
	Service, Action string
	Calls, Refused  int
	// Unimplemented: the simulated cloud does not serve the action.
	Unimplemented bool
}

// ImageRegistry is a provider with a registry whose images a kubelet pulls
// only with credentials the cloud issues.
type ImageRegistry interface {
	// KubeletCredentialFlags are the kubelet flags that let a kubelet of a
	// version pull from it (nil: that kubelet needs none); the files they
	// name are on every node.
	KubeletCredentialFlags(version string) map[string]string
	// RegistryImage is an image in that registry.
	RegistryImage() string
}

// MachineShapes is a provider whose code reads a machine's network
// interfaces, so that a rehearsal may give its machines a second one or
// start the kubelets without --node-ip.
type MachineShapes interface {
	ReadsMachineShapes()
}

// InstanceMetadata is a provider whose simulated cloud serves the
// instance metadata service at the link-local address its code and its
// runbooks' tools read (RKE's useInstanceMetadataHostname asks it for the
// hostname).
type InstanceMetadata interface {
	ServesInstanceMetadata()
}

// NetworkShapes is a provider whose simulated cloud shapes the cluster's
// network as users' networks are shaped where its code trips on them
// (cloudcluster.NetworkShape: more route tables tagged for the cluster).
type NetworkShapes interface {
	ShapesNetwork()
}

// Imitation is an imitated provider (Runs Imitated) named apart from the
// provider whose manager it imitates, which runs its own code under its
// own name: Imitates is that provider's profile name.
type Imitation interface {
	Imitates() string
}

// ProfileName is the profile a provider's name stands for
// (providers/profiles): an imitation's is the profile it imitates; any
// other name, registered or not, is its own.
func ProfileName(name string) string {
	if p, err := Lookup(name); err == nil {
		if i, ok := As[Imitation](p); ok {
			return i.Imitates()
		}
	}
	return name
}

// NodeMetadataLag is a provider whose kubelets report a Node's cloud
// metadata some time after the cloud changed it (a cache of the
// instance metadata, a status update period): a rehearsal lets the
// Nodes settle that long after its load's load balancers are made, so
// that what the Nodes carry before the procedure is the cloud's steady
// state, as on a cluster whose load balancers stood before the migration.
type NodeMetadataLag interface {
	NodeMetadataLag() time.Duration
}

// RouteBatching is a provider whose code writes routes in batches: a route
// the route controller asks for reaches the cloud up to Interval later,
// which the route table's check allows for and a rehearsal observes for
// after the procedure.
type RouteBatching interface {
	RouteBatch() time.Duration
}

// CloudNamed is a provider whose clusters name their cloud otherwise than
// handover names the provider: the managers' --cloud-provider and the
// ProviderIDs' scheme (a running cluster says its cloud so).
type CloudNamed interface {
	CloudName() string
}

// CloudName is the name a provider's clusters give their cloud: its
// CloudName, else its profile's name.
func CloudName(p Provider) string {
	if c, ok := As[CloudNamed](p); ok {
		return c.CloudName()
	}
	return ProfileName(p.Name())
}

// OfCloud are the providers of a cloud as its clusters name it (a
// manager's --cloud-provider, a ProviderID's scheme): its own code first,
// then handover's simulated provider, then an imitation of it.
func OfCloud(cloud string) []Provider {
	var out []Provider
	for _, runs := range []Runs{OwnCode, HandoversCode, Imitated} {
		for _, p := range All() {
			if p.Runs() == runs && CloudName(p) == cloud {
				out = append(out, p)
			}
		}
	}
	return out
}
