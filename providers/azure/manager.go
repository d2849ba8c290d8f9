package azure

import (
	"path/filepath"
	"strings"
	"time"

	"github.com/handover-sh/handover/internal/cmdline"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	azureface "github.com/handover-sh/handover/simulate/cloudserver/azure"
)

// Manager is cloud-provider-azure's manager as the procedures place it:
// the chart's workload, or a static pod.
func (Provider) Manager() providers.Manager {
	return cloudcluster.KubeadmManager(cloudcluster.ManagerSide{CloudProvider: Name, CloudConfigPath: CloudConfigPath,
		CCMCloudConfigPath: CCMCloudConfigPath, WorkloadName: CCMName, Forms: forms{}})
}

// InTreeCode is the in-tree azure provider a Kubernetes release builds
// into its managers and kubelets.
func (Provider) InTreeCode(version string) string {
	return cloudcluster.LegacyInTreeCode(Name, version)
}

// CCMCode is the cloud-provider-azure release handover builds for a
// version.
func (Provider) CCMCode(version string) string {
	c, err := releaseOf(version)
	if err != nil {
		return ""
	}
	return "sigs.k8s.io/cloud-provider-azure@" + c.Version
}

// API: the azure provider's code calls Azure Resource Manager and the
// instance metadata service, which the simulated cloud serves as Azure
// does.
func (Provider) API() string { return Name }

// APIActions are the ARM and metadata operations the cloud answered since
// it started with the cluster, from its call log.
func (Provider) APIActions(stateDir string) ([]providers.APIAction, error) {
	counts, err := azureface.SummarizeCalls(filepath.Join(stateDir, azureface.CallLogFile), time.Time{})
	if err != nil {
		return nil, err
	}
	return cloudcluster.APIActions(counts), nil
}

// forms are cloud-provider-azure's manager's forms.
type forms struct{}

func (forms) Image(version string) string {
	c, err := releaseOf(version)
	if err != nil {
		return ""
	}
	return c.Image
}

func (forms) Kubeconfig(conf, caCert, caKey []byte) (string, error) {
	return cloudcluster.CCMKubeconfig(conf, caCert, caKey)
}

// StaticPod is the chart's manager as a static pod, in the form kubeadm
// gives kube-controller-manager (cloudcluster.StaticPodManifest): its
// binary, the chart's arguments and the cluster's, its azure.json and the
// cloud's CA.
func (forms) StaticPod(in providers.StaticPodInput) string {
	c, _ := releaseOf(in.Version)
	args := append([]string{c.Binary,
		"--kubeconfig=" + cloudcluster.CCMKubeconfigPath,
		"--authentication-kubeconfig=" + cloudcluster.CCMKubeconfigPath,
		"--authorization-kubeconfig=" + cloudcluster.CCMKubeconfigPath},
		cmdline.Merge(CCMArgs(in.Cluster, in.PodSubnet), in.Args)...)
	files := append([]cloudcluster.HostFile{{Name: "kubeconfig", Path: cloudcluster.CCMKubeconfigPath}, {Name: "cloud-config", Path: CCMCloudConfigPath},
		{Name: "cloud-ca", Path: caPath}}, cloudcluster.HostFiles(in.Files)...)
	return cloudcluster.StaticPodManifest(c.Image, args, files)
}

// NodeManager is the chart's cloud-node-manager: the chart runs the
// manager with --controllers=*,-cloud-node, so without it the Nodes of
// external kubelets stay uninitialised.
func (forms) NodeManager(version string) string {
	c, err := releaseOf(version)
	if err != nil {
		return ""
	}
	return strings.ReplaceAll(nodeManagerObjects, "CNM_IMAGE", c.NodeManager.Image)
}

// Workload is the chart's objects, the manager in the form asked, with a
// leader-migration configuration mounted from a ConfigMap when the input
// has one (the manager reads neither the flags nor the file, but a
// procedure passes them as it would to any manager).
func (forms) Workload(in providers.WorkloadInput) string {
	m, err := chartManifest(chartInput{form: in.Form, replicas: in.Replicas, version: in.Version, cluster: in.Cluster, podSubnet: in.PodSubnet, extraArgs: in.Args,
		noNodeManager: in.NoNodeManager})
	if err != nil {
		return ""
	}
	if in.Config == "" {
		return m
	}
	return cloudcluster.WithLeaderMigrationConfig(m, "          ", in.Config, in.ConfigPath)
}

// NodeMetadataLag: a kubelet of the in-tree provider adds the public IP of
// every standard load balancer its VM is a backend of to its Node's
// addresses (ExternalIP), read from the metadata service's
// /metadata/loadbalancer through a one-minute cache
// (legacy-cloud-providers@v0.29.15 azure/azure_instance_metadata.go:
// metadataCacheTTL, GetMetadata), and reports addresses every node status
// update (10 s, the kubelet's nodeStatusUpdateFrequency).
func (Provider) NodeMetadataLag() time.Duration { return time.Minute + 10*time.Second }

// RouteBatch: both azure providers write the route table in batches, every
// 30 s, and a route the route controller asks for waits for the next one
// (legacy-cloud-providers@v0.29.15 azure/azure_routes.go
// routeUpdateInterval; cloud-provider-azure@v1.30.4 pkg/consts
// DefaultRouteUpdateIntervalInSeconds, routeUpdateIntervalInSeconds unset
// in the cluster's azure.json).
func (Provider) RouteBatch() time.Duration { return 30 * time.Second }
