package azure

import (
	"context"
	_ "embed"
	"fmt"
	"net"
	"path/filepath"
	"strconv"

	"github.com/handover-sh/handover/internal/pki"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudserver"
	azureface "github.com/handover-sh/handover/simulate/cloudserver/azure"
)

//go:embed bootstrap-kubeadm.sh
var bootstrapKubeadm []byte

// caDomain is a DNS domain the cloud's CA may sign for: a reserved one
// (RFC 2606). Beside it the CA every node trusts may vouch only for the
// cluster's registry (RegistryHost), which the nodes reach in the cloud.
const caDomain = "handover.invalid"

// principals are the managers the cloud issues a user-assigned identity
// each: their azure.json names it, and the cloud's audit tells them apart
// by it. A kubelet asks as its node's own identity.
var principals = map[string]string{"kcm.json": "kube-controller-manager", "ccm.json": "cloud-controller-manager"}

// endpoints are where the cloud serves ARM (over TLS) and the metadata
// service to the nodes.
type endpoints struct {
	gateway           string
	armPort, imdsPort int
	nodeNetwork       string
}

func (e endpoints) arm() string  { return net.JoinHostPort(e.gateway, strconv.Itoa(e.armPort)) }
func (e endpoints) imds() string { return net.JoinHostPort(e.gateway, strconv.Itoa(e.imdsPort)) }

// Prepare makes the cloud's CA and ARM's certificate, the identities'
// token key, the three azure.json files and the bootstrap; the cloud
// serves ARM over TLS and the metadata service at the address Azure's is
// at.
func (Provider) Prepare(ctx context.Context, in cloudcluster.PrepareInput) (cloudcluster.Served, error) {
	subnet, err := cloudcluster.KindSubnet(ctx)
	if err != nil {
		return cloudcluster.Served{}, err
	}
	ports, err := cloudcluster.FreePorts(in.Gateway, 2)
	if err != nil {
		return cloudcluster.Served{}, err
	}
	e := endpoints{gateway: in.Gateway, armPort: ports[0], imdsPort: ports[1], nodeNetwork: subnet}
	flags, err := prepare(in.Cluster, e, in.Vars)
	if err != nil {
		return cloudcluster.Served{}, err
	}
	return cloudcluster.Served{Flags: flags, Metadata: e.imds(), Registry: theRegistry(in.Cluster, e)}, nil
}

// prepare writes every file the nodes and the cloud need; it returns the
// cloud's extra serve flags.
func prepare(cluster string, e endpoints, own cloudcluster.CloudConfigVars) ([]string, error) {
	dir := stateDir(cluster)
	if err := privatefs.MkdirAll(dir); err != nil {
		return nil, err
	}
	gw := net.ParseIP(e.gateway)
	ca, err := pki.NewCA("handover azure cloud "+cluster, []string{caDomain, RegistryHost}, []net.IP{gw})
	if err != nil {
		return nil, err
	}
	cert, key, err := ca.Issue(nil, []net.IP{gw})
	if err != nil {
		return nil, err
	}
	tokenKey, err := azureface.NewTokenKey()
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{"ca.crt": ca.CertPEM, "arm.crt": cert, "arm.key": key, "token.key": tokenKey,
		"credential-provider.yaml": []byte(credentialProviderConfig())}
	network := faceNetwork(cluster, e.nodeNetwork)
	sides := map[string][][2]string{"azure.json": own.KCM, "kcm.json": own.KCM, "ccm.json": own.CCM}
	for name, principal := range map[string]string{"azure.json": "", "kcm.json": principals["kcm.json"], "ccm.json": principals["ccm.json"]} {
		cfg, err := withOwn(azureface.ProviderConfig{Network: network, ARM: "https://" + e.arm() + "/", LoadBalancerSku: "standard"}, sides[name])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if principal != "" {
			cfg.ClientID = azureface.ClientID(cluster, principal)
		}
		if files[name], err = cfg.JSON(); err != nil {
			return nil, err
		}
	}
	for name, content := range files {
		if err := privatefs.WriteFile(filepath.Join(dir, name), content); err != nil {
			return nil, err
		}
	}
	if err := privatefs.WriteFileMode(filepath.Join(dir, "bootstrap-kubeadm"), bootstrapKubeadm, 0o700); err != nil {
		return nil, err
	}
	registryKey, err := theRegistry(cluster, e).WriteFiles(ca, []string{RegistryHost})
	if err != nil {
		return nil, err
	}
	return []string{"--registry", RegistryHost, "--registry-token-key", registryKey,
		"--azure-listen", e.arm(), "--azure-tls-cert", filepath.Join(dir, "arm.crt"), "--azure-tls-key", filepath.Join(dir, "arm.key"),
		"--azure-token-key", filepath.Join(dir, "token.key"), "--azure-node-network", e.nodeNetwork, "--azure-imds-listen", e.imds()}, nil
}

// faceNetwork is the cluster's Azure network as the face serves it and
// the azure.json files name it.
func faceNetwork(cluster, cidr string) azureface.Network {
	return azureface.Network{Cluster: cluster, Location: azureface.LocationOf(cloudserver.Region), Zones: cloudserver.Zones(), CIDR: cidr}
}
