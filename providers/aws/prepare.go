package aws

import (
	"context"
	_ "embed"
	"fmt"
	"net"
	"path/filepath"
	"strconv"

	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/awsapi"
)

//go:embed bootstrap-kubeadm.sh
var bootstrapKubeadm []byte

// principals are the cluster-wide components the cloud issues a key
// each: the cloud's audit tells them apart by it. Each node's kubelet gets
// its own (issueKubeletKey).
var principals = []string{"kube-controller-manager", "cloud-controller-manager"}

// stateDir holds what an aws cluster's nodes are given.
func stateDir(cluster string) string { return filepath.Join(cloudcluster.StateDir(cluster), "aws") }

// endpoints are where the cloud serves the AWS APIs and the metadata
// service to the nodes.
type endpoints struct {
	gateway           string
	apiPort, metaPort int
	tlsPort           int // the AWS APIs over TLS, ECR's credential callers' way in
	nodeNetwork       string
}

// endpointsOn picks the ports of the AWS APIs and the metadata service
// on the gateway.
func endpointsOn(ctx context.Context, gw string) (endpoints, error) {
	subnet, err := cloudcluster.KindSubnet(ctx)
	if err != nil {
		return endpoints{}, err
	}
	ports, err := cloudcluster.FreePorts(gw, 3)
	if err != nil {
		return endpoints{}, err
	}
	return endpoints{gateway: gw, apiPort: ports[0], metaPort: ports[1], tlsPort: ports[2], nodeNetwork: subnet}, nil
}

// Prepare issues the components' keys and writes every file the nodes
// and the cloud need; the cloud serves the AWS face, the metadata service
// at the address EC2's is at, and ECR's registry.
func (Provider) Prepare(ctx context.Context, in cloudcluster.PrepareInput) (cloudcluster.Served, error) {
	e, err := endpointsOn(ctx, in.Gateway)
	if err != nil {
		return cloudcluster.Served{}, err
	}
	flags, err := prepare(in.Cluster, e, in.Vars, in.Policies)
	if err != nil {
		return cloudcluster.Served{}, err
	}
	flags = append(flags, shapeFlags(in.Network)...)
	reg := registry(in.Cluster)
	reg.Upstream = net.JoinHostPort(e.gateway, strconv.Itoa(e.tlsPort))
	return cloudcluster.Served{Flags: flags, Registry: reg, Metadata: net.JoinHostPort(e.gateway, strconv.Itoa(e.metaPort))}, nil
}

// prepare issues the components' keys and writes every file the nodes
// and the cloud need; it returns the cloud's extra serve flags.
func prepare(cluster string, e endpoints, own cloudcluster.CloudConfigVars, policies map[string][]byte) ([]string, error) {
	dir := stateDir(cluster)
	if err := privatefs.MkdirAll(filepath.Join(dir, "patches")); err != nil {
		return nil, err
	}
	keys, err := issueKeys(cluster)
	if err != nil {
		return nil, err
	}
	apiAddr := net.JoinHostPort(e.gateway, strconv.Itoa(e.apiPort))
	cfg := amazon.ProviderConfig{Region: cloudserver.Region, AWS: "http://" + apiAddr, ClusterID: cluster}
	kcm, ccm, clusterID := configs(own, cfg, cluster)
	if err := writeFiles(dir, kcm, ccm, keys); err != nil {
		return nil, err
	}
	ecr, err := prepareRegistry(cluster, e)
	if err != nil {
		return nil, err
	}
	held, err := writePolicies(dir, policies)
	if err != nil {
		return nil, err
	}
	// IMDSv2 required, as EC2 launches instances from AMIs registered with
	// ImdsSupport v2.0 (Amazon Linux 2023's): the providers' SDKs and the
	// bootstrap must take a session token first.
	return append([]string{"--aws-keys", keysFile(cluster), "--aws-listen", apiAddr, "--aws-cluster-id", clusterID,
		"--node-network", e.nodeNetwork, "--imds-listen", net.JoinHostPort(e.gateway, strconv.Itoa(e.metaPort)), "--imds-require-token"}, append(ecr, held...)...), nil
}

// shapeFlags are serve's flags that shape the cluster's network.
func shapeFlags(n cloudcluster.NetworkShape) []string {
	var out []string
	if n.RouteTables > 1 {
		out = append(out, "--aws-route-tables", strconv.Itoa(n.RouteTables))
	}
	if n.DHCPDomain != "" {
		out = append(out, "--aws-dhcp-domain", n.DHCPDomain)
	}
	return out
}

// issueKeys issues the cluster-wide components their keys, in the keys'
// file the cloud serves.
func issueKeys(cluster string) (map[string]awsapi.Key, error) {
	keys := map[string]awsapi.Key{}
	var all []awsapi.Key
	for _, p := range principals {
		k, err := amazon.NewKey(p)
		if err != nil {
			return nil, err
		}
		keys[p] = k
		all = append(all, k)
	}
	return keys, amazon.WriteKeys(keysFile(cluster), all)
}

// writeFiles writes the two sides' cloud-configs, the kubelets'
// credential provider's, the managers' keys, the kube-controller-manager's
// patch and the bootstrap.
func writeFiles(dir string, kcm, ccm amazon.ProviderConfig, keys map[string]awsapi.Key) error {
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
      value: ` + kcmCredentials + "\n",
	}
	for name, content := range files {
		if err := privatefs.WriteFile(filepath.Join(dir, name), []byte(content)); err != nil {
			return err
		}
	}
	return privatefs.WriteFileMode(filepath.Join(dir, "bootstrap-kubeadm"), bootstrapKubeadm, 0o700)
}

// sharedCredentials is the AWS SDK's credentials file holding one key.
func sharedCredentials(k awsapi.Key) string {
	return fmt.Sprintf("[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n", k.ID, k.Secret)
}
