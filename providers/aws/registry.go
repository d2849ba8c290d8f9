package aws

import (
	"net"
	"path/filepath"
	"strconv"

	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/pki"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
)

// An aws cluster's registry is ECR's: its container also answers under
// ECR's API name, so the kubelets' image credential providers reach ECR
// where the SDK looks for it (no override) and containerd pulls from
// where the token says. The SDK trusts the cluster's CA through
// AWS_CA_BUNDLE. ECR's API calls go on to the cloud's AWS APIs over TLS
// too: the tokens they answer with are credentials.

var (
	// registryHost and ecrAPIHost are the cloud's ECR registry and API.
	registryHost = amazon.RegistryHost(cloudserver.Region)
	ecrAPIHost   = amazon.ECRAPIHost(cloudserver.Region)
	// echoImage is the echo image as pods pull it from the cloud's
	// registry.
	echoImage = registryHost + "/" + nodeimage.EchoRepository
	// registryCertsDir is the registry's directory in containerd's
	// certs.d on every node.
	registryCertsDir = cloudcluster.Registry{Host: registryHost}.CertsDir()
)

// caPath is the cluster CA's certificate on every node.
const caPath = nodeDir + "/ca.crt"

// registry is the cluster's ECR, its files in the aws state dir.
func registry(cluster string) cloudcluster.Registry {
	return cloudcluster.Registry{Host: registryHost, APIHost: ecrAPIHost, User: ecrtoken.User, Service: "ecr.amazonaws.com", StateDir: stateDir(cluster)}
}

// prepareRegistry makes the cluster's CA and the certificates, token key
// and node files of ECR: returned are the cloud's extra serve flags.
func prepareRegistry(cluster string, e endpoints) ([]string, error) {
	reg := registry(cluster)
	dir := reg.StateDir
	gw := net.ParseIP(e.gateway)
	ca, err := pki.NewCA("handover cloud "+cluster, []string{registryHost, ecrAPIHost}, []net.IP{gw})
	if err != nil {
		return nil, err
	}
	apiCert, apiKey, err := ca.Issue([]string{ecrAPIHost}, []net.IP{gw})
	if err != nil {
		return nil, err
	}
	for name, content := range map[string][]byte{"ecr-api.crt": apiCert, "ecr-api.key": apiKey} {
		if err := privatefs.WriteFile(filepath.Join(dir, name), content); err != nil {
			return nil, err
		}
	}
	keyFile, err := reg.WriteFiles(ca, []string{registryHost, ecrAPIHost})
	if err != nil {
		return nil, err
	}
	return []string{"--aws-tls-listen", net.JoinHostPort(e.gateway, strconv.Itoa(e.tlsPort)),
		"--aws-tls-cert", filepath.Join(dir, "ecr-api.crt"), "--aws-tls-key", filepath.Join(dir, "ecr-api.key"),
		"--registry-token-key", keyFile}, nil
}
