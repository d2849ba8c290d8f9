package cloudcluster

import (
	"context"
	_ "embed"
	"fmt"
	"net"
	"path/filepath"
	"strconv"

	"sigs.k8s.io/kind/pkg/apis/config/v1alpha4"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/clusters/topology"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/providers/profiles"
	"github.com/handover-sh/handover/simulate/simcloud"
	"github.com/handover-sh/handover/simulate/simcloud/amazon"
	"github.com/handover-sh/handover/simulate/simcloud/awsapi"
)

// An aws cluster's cloud also answers as EC2, classic ELB and the instance
// metadata service (simulate/simcloud/amazon), and its kubelets and
// managers run the aws provider's own code against it: pointed there by
// the provider's cloud-config ([ServiceOverride]s), signing with keys the
// cloud issued each component, and named as AWS names instances.

const (
	// AWSCloudConfigPath is the aws providers' cloud-config on every node:
	// the in-tree provider's (kube-controller-manager and kubelets).
	AWSCloudConfigPath = awsNodeDir + "/cloud.conf"
	// AWSCCMCloudConfigPath is the cloud-controller-manager's: the same
	// unless a user gives each side its own.
	AWSCCMCloudConfigPath = awsNodeDir + "/cloud-ccm.conf"
	awsNodeDir            = "/etc/kubernetes/aws"
	// The kube-controller-manager's key, as the SDK's shared credentials
	// file: a static pod's environment shows in its mirror pod, a path
	// does not.
	awsKCMCredentials = awsNodeDir + "/kube-controller-manager.credentials"
	// awsPatchDir holds the kubeadm patch that points the manager there.
	awsPatchDir = awsNodeDir + "/patches"
	// bootstrapKubeadmPath is ahead of the image's /usr/bin/kubeadm on
	// PATH, so kind's and handover's kubeadm runs take it.
	bootstrapKubeadmPath = "/usr/local/bin/kubeadm"
	// kubeletEnvPath is the kubelet unit's EnvironmentFile for overrides
	// (kind's 10-kubeadm.conf drop-in): its key reaches it there.
	kubeletEnvPath = "/etc/default/kubelet"
	// NodeNameFromMetadata is the node name cluster-api's AWS templates
	// give kubeadm: the bootstrap fills in the instance's private DNS
	// name from the metadata service before kubeadm runs.
	NodeNameFromMetadata = "{{ ds.meta_data.local_hostname }}"
)

//go:embed bootstrap-kubeadm.sh
var bootstrapKubeadm []byte

// awsPrincipals are the cluster-wide components the cloud issues a key
// each: the cloud's audit tells them apart by it. Each node's kubelet gets
// its own (IssueKubeletKey).
var awsPrincipals = []string{"kube-controller-manager", "cloud-controller-manager"}

// awsStateDir holds what an aws cluster's nodes are given.
func awsStateDir(cluster string) string { return filepath.Join(StateDir(cluster), "aws") }

// awsHostFiles are the files written for an aws cluster (relative to its
// state dir) and where each is mounted: on every node, or only on
// control planes. A node's kubelet key is its own (awsNodeMounts).
var awsHostFiles = []struct {
	name, path   string
	controlPlane bool
}{
	{"cloud.conf", AWSCloudConfigPath, false},
	{"cloud-ccm.conf", AWSCCMCloudConfigPath, false},
	{"bootstrap-kubeadm", bootstrapKubeadmPath, false},
	{"patches", awsPatchDir, false},
	{"kube-controller-manager.credentials", awsKCMCredentials, true},
	{"cloud-controller-manager.credentials", awsCCMKeyPath, true},
	{"ca.crt", awsCAPath, false},
	{"credential-provider.yaml", awsCredentialProviderConfig, false},
	{registryCertsSubdir, registryCertsDir, false},
}

// awsEndpoints are where the cloud serves the AWS APIs and the metadata
// service to the nodes.
type awsEndpoints struct {
	gateway           string
	apiPort, metaPort int
	tlsPort           int // the AWS APIs over TLS, ECR's credential callers' way in
	nodeNetwork       string
}

// prepareAWS issues the components' keys and writes every file the nodes
// and the cloud need; it returns the cloud's extra serve flags.
func prepareAWS(ctx context.Context, cluster string, e awsEndpoints, own *AWSCloudConfigs) ([]string, error) {
	dir := awsStateDir(cluster)
	if err := privatefs.MkdirAll(filepath.Join(dir, "patches")); err != nil {
		return nil, err
	}
	keys := map[string]awsapi.Key{}
	var all []awsapi.Key
	for _, p := range awsPrincipals {
		k, err := amazon.NewKey(p)
		if err != nil {
			return nil, err
		}
		keys[p] = k
		all = append(all, k)
	}
	if err := amazon.WriteKeys(awsKeysFile(cluster), all); err != nil {
		return nil, err
	}
	apiAddr := net.JoinHostPort(e.gateway, strconv.Itoa(e.apiPort))
	cfg := amazon.ProviderConfig{Region: simcloud.Region, AWS: "http://" + apiAddr, ClusterID: cluster}
	kcm, ccm, clusterID := own.configs(cfg, cluster)
	files := map[string]string{
		"cloud.conf":                           kcm.INI(),
		"cloud-ccm.conf":                       ccm.INI(),
		"credential-provider.yaml":             credentialProviderConfig(),
		"kube-controller-manager.credentials":  sharedCredentials(keys["kube-controller-manager"]),
		"cloud-controller-manager.credentials": sharedCredentials(keys["cloud-controller-manager"]),
		"patches/kube-controller-manager+strategic.yaml": `spec:
  containers:
  - name: kube-controller-manager
    env:
    - name: AWS_SHARED_CREDENTIALS_FILE
      value: ` + awsKCMCredentials + "\n",
	}
	for name, content := range files {
		if err := privatefs.WriteFile(filepath.Join(dir, name), []byte(content)); err != nil {
			return nil, err
		}
	}
	if err := privatefs.WriteFileMode(filepath.Join(dir, "bootstrap-kubeadm"), bootstrapKubeadm, 0o700); err != nil {
		return nil, err
	}
	ecr, err := prepareRegistry(cluster, e)
	if err != nil {
		return nil, err
	}
	// IMDSv2 required, as EC2 launches instances from AMIs registered with
	// ImdsSupport v2.0 (Amazon Linux 2023's): the providers' SDKs and the
	// bootstrap must take a session token first.
	return append([]string{"--aws-keys", awsKeysFile(cluster), "--aws-listen", apiAddr, "--aws-cluster-id", clusterID,
		"--node-network", e.nodeNetwork, "--imds-listen", net.JoinHostPort(e.gateway, strconv.Itoa(e.metaPort)), "--imds-require-token"}, ecr...), nil
}

// sharedCredentials is the AWS SDK's credentials file holding one key.
func sharedCredentials(k awsapi.Key) string {
	return fmt.Sprintf("[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n", k.ID, k.Secret)
}

// awsNodeMounts are the aws files a node gets by its role, and its own
// kubelet key (the file IssueKubeletKey writes for it).
func awsNodeMounts(cluster, node string, role v1alpha4.NodeRole) []v1alpha4.Mount {
	dir := awsStateDir(cluster)
	var out []v1alpha4.Mount
	for _, f := range awsHostFiles {
		if f.controlPlane && role != v1alpha4.ControlPlaneRole {
			continue
		}
		out = append(out, v1alpha4.Mount{HostPath: filepath.Join(dir, f.name), ContainerPath: f.path, Readonly: true})
	}
	return append(out, v1alpha4.Mount{HostPath: kubeletEnvFile(cluster, node), ContainerPath: kubeletEnvPath, Readonly: true})
}

// configureAWS mounts the aws files into the nodes, each its own kubelet
// key by the name kind gives it, and points kubeadm, the kubelets and
// (in-tree) the kube-controller-manager at the aws provider: every node
// named by its instance's private DNS name, as kubeadm clusters on AWS
// name them. The keys are issued apart (issueKubeletKeys).
func configureAWS(cfg *v1alpha4.Cluster, mode Mode, cluster, version string) {
	names := kindNodeNames(cluster, cfg.Nodes)
	for i := range cfg.Nodes {
		cfg.Nodes[i].ExtraMounts = append(cfg.Nodes[i].ExtraMounts, awsNodeMounts(cluster, names[i], cfg.Nodes[i].Role)...)
	}
	kubelet := "cloud-provider: external"
	// An external kubelet without an in-tree ECR provider pulls from the
	// cloud's registry through the plugin its image carries.
	kubelet += kubeletArgLines(awsImageCredentials(version))
	if mode == InTree {
		kubelet = "cloud-provider: " + providers.AWS + "\n    cloud-config: " + AWSCloudConfigPath
	}
	registration := `nodeRegistration:
  name: '` + NodeNameFromMetadata + `'
  kubeletExtraArgs:
    ` + kubelet + `
    provider-id: ""
patches:
  directory: ` + awsPatchDir
	cfg.KubeadmConfigPatches = append(cfg.KubeadmConfigPatches,
		"kind: InitConfiguration\n"+registration, "kind: JoinConfiguration\n"+registration)
	if mode != InTree {
		return
	}
	cfg.KubeadmConfigPatches = append(cfg.KubeadmConfigPatches, `kind: ClusterConfiguration
controllerManager:
  extraArgs:
    cloud-provider: `+providers.AWS+`
    cloud-config: `+AWSCloudConfigPath+`
    cluster-name: `+cluster+`
    configure-cloud-routes: "true"
  extraVolumes:
  - name: cloud-config
    hostPath: `+AWSCloudConfigPath+`
    mountPath: `+AWSCloudConfigPath+`
    readOnly: true
    pathType: File
  - name: aws-credentials
    hostPath: `+awsKCMCredentials+`
    mountPath: `+awsKCMCredentials+`
    readOnly: true
    pathType: File`)
}

// validateAWS refuses a cluster the aws provider's code cannot run in:
// in-tree needs a kube-controller-manager that still has the aws
// provider (its profile says which minors do), external a node image
// that carries cloud-provider-aws's manager.
func validateAWS(mode Mode, t topology.Topology) error {
	switch mode {
	case None:
		return fmt.Errorf("--provider %s needs a cloud: use --cloud in-tree or external", providers.AWS)
	case InTree:
		p, err := profiles.Lookup(providers.AWS, t.Kubernetes)
		if err != nil {
			return err
		}
		if !p.InTree.Value {
			return fmt.Errorf("--provider %s --cloud in-tree: Kubernetes %s has no in-tree aws provider (removed in 1.27): use --kubernetes v1.26.13", providers.AWS, t.Kubernetes)
		}
		return nil
	}
	r, err := nodeimage.Lookup(t.Kubernetes)
	if err != nil {
		return err
	}
	for _, c := range r.ProviderCCMs {
		if c.Provider == providers.AWS {
			return nil
		}
	}
	return fmt.Errorf("--provider %s --cloud external: the %s node image carries no cloud-provider-aws manager: use --kubernetes v1.27.4", providers.AWS, t.Kubernetes)
}
