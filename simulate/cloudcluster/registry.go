package cloudcluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/handover-sh/handover/clusters/engine"
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/pki"
	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/simulate/simcloud"
	"github.com/handover-sh/handover/simulate/simcloud/amazon"
	"github.com/handover-sh/handover/simulate/simcloud/ecrtoken"
	"github.com/handover-sh/handover/waits"
)

// An aws cluster's cloud has a container registry, as ECR is one: a
// registry container on the kind network answering, by Docker's embedded
// DNS, under the account's registry name and ECR's API name, so the
// kubelets' image credential providers reach ECR where the SDK looks for
// it (no override) and containerd pulls from where the token says. Both
// names are served over TLS with a certificate of the cluster's own CA,
// which the nodes trust for these names only: containerd for the
// registry (its certs.d), the SDK through AWS_CA_BUNDLE. ECR's API calls
// go on to the cloud's AWS APIs over TLS too: the tokens they answer with
// are credentials.

var (
	// RegistryHost and ECRAPIHost are the cloud's registry and ECR's API.
	RegistryHost = amazon.RegistryHost(simcloud.Region)
	ECRAPIHost   = amazon.ECRAPIHost(simcloud.Region)
	// EchoImageInRegistry is the echo image as pods pull it from the
	// cloud's registry.
	EchoImageInRegistry = RegistryHost + "/" + nodeimage.EchoRepository
)

const (
	// awsCAPath is the cluster CA's certificate on every node.
	awsCAPath = awsNodeDir + "/ca.crt"
	// registryDir is the registry container's files, from the state dir.
	registryDir          = "/etc/handover-registry"
	registryPort         = 443
	registryStateSubdir  = "registry"
	registryCertsSubdir  = "certs.d"
	registryTokenKeyFile = "token.key"
)

// registryCertsDir is the cloud registry's directory in containerd's
// certs.d on every node.
var registryCertsDir = nodeimage.RegistryConfigDir + "/" + RegistryHost

// registryContainer names a cluster's registry container.
func registryContainer(cluster string) string { return cluster + "-registry" }

// prepareRegistry makes the cluster's CA and the certificates, token key
// and node files of ECR: returned are the cloud's extra serve flags.
func prepareRegistry(dir string, e awsEndpoints) ([]string, error) {
	gw := net.ParseIP(e.gateway)
	ca, err := pki.NewCA("handover cloud "+filepath.Base(filepath.Dir(dir)), []string{RegistryHost, ECRAPIHost}, []net.IP{gw})
	if err != nil {
		return nil, err
	}
	apiCert, apiKey, err := ca.Issue([]string{ECRAPIHost}, []net.IP{gw})
	if err != nil {
		return nil, err
	}
	regCert, regKey, err := ca.Issue([]string{RegistryHost, ECRAPIHost}, nil)
	if err != nil {
		return nil, err
	}
	tokenKey, err := ecrtoken.NewKey()
	if err != nil {
		return nil, err
	}
	reg, certs := filepath.Join(dir, registryStateSubdir), filepath.Join(dir, registryCertsSubdir)
	for _, d := range []string{reg, certs} {
		if err := privatefs.MkdirAll(d); err != nil {
			return nil, err
		}
	}
	files := map[string][]byte{
		"ca.crt":                         ca.CertPEM,
		"ecr-api.crt":                    apiCert,
		"ecr-api.key":                    apiKey,
		registryStateSubdir + "/ca.crt":  ca.CertPEM,
		registryStateSubdir + "/tls.crt": regCert,
		registryStateSubdir + "/tls.key": regKey,
		registryCertsSubdir + "/ca.crt":  ca.CertPEM,
		registryCertsSubdir + "/hosts.toml": []byte(`server = "https://` + RegistryHost + `"

[host."https://` + RegistryHost + `"]
  capabilities = ["pull", "resolve"]
  ca = "` + registryCertsDir + `/ca.crt"
`),
	}
	for name, content := range files {
		if err := privatefs.WriteFile(filepath.Join(dir, name), content); err != nil {
			return nil, err
		}
	}
	if err := ecrtoken.WriteKey(filepath.Join(reg, registryTokenKeyFile), tokenKey); err != nil {
		return nil, err
	}
	return []string{"--aws-tls-listen", net.JoinHostPort(e.gateway, strconv.Itoa(e.tlsPort)),
		"--aws-tls-cert", filepath.Join(dir, "ecr-api.crt"), "--aws-tls-key", filepath.Join(dir, "ecr-api.key"),
		"--registry-token-key", filepath.Join(reg, registryTokenKeyFile)}, nil
}

// startRegistry runs the cluster's registry container and waits until it
// answers: it relays ECR's API to the cloud's TLS listener at upstream.
func startRegistry(ctx context.Context, cluster, upstream string) error {
	name := registryContainer(cluster)
	reg := filepath.Join(awsStateDir(cluster), registryStateSubdir)
	cmd := []string{"--listen", ":" + strconv.Itoa(registryPort), "--host", RegistryHost,
		"--api-host", ECRAPIHost, "--api-upstream", "https://" + upstream,
		"--ca", registryDir + "/ca.crt", "--cert", registryDir + "/tls.crt", "--key", registryDir + "/tls.key",
		"--token-key", registryDir + "/" + registryTokenKeyFile}
	for _, s := range nodeimage.RegistrySeeds {
		cmd = append(cmd, "--seed", s)
	}
	spec := engine.RunSpec{Name: name, Image: nodeimage.RegistryImage, Network: engine.KindNetwork,
		Aliases: []string{RegistryHost, ECRAPIHost}, RestartRetries: 3, Cmd: cmd,
		Binds:  []string{reg + ":" + registryDir + ":ro"},
		Labels: map[string]string{simcloud.ClusterLabel: cluster}}
	if err := engine.Run(ctx, spec); err != nil {
		return fmt.Errorf("starting the cloud's registry %s: %w", name, err)
	}
	roots := x509.NewCertPool()
	caFile := filepath.Join(awsStateDir(cluster), "ca.crt")
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return fmt.Errorf("the cluster's CA certificate: %w", err)
	}
	if !roots.AppendCertsFromPEM(ca) {
		return fmt.Errorf("the cluster's CA certificate %s holds no certificate", caFile)
	}
	limit := waits.Of(ctx, WaitCloudStart)
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, limit, true, func(ctx context.Context) (bool, error) {
		info, err := engine.Inspect(ctx, name)
		if err != nil || info.NetworkSettings == nil {
			return false, nil
		}
		if info.State != nil && info.State.Status == "exited" && info.State.ExitCode != 0 {
			return false, fmt.Errorf("it exited (%d): docker logs %s", info.State.ExitCode, name)
		}
		ep := info.NetworkSettings.Networks[engine.KindNetwork]
		if ep == nil || ep.IPAddress == "" {
			return false, nil
		}
		// A TLS handshake as the nodes make it: the registry's name, the
		// cluster's CA.
		d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: time.Second}, Config: &tls.Config{RootCAs: roots, ServerName: RegistryHost, MinVersion: tls.VersionTLS12}}
		c, err := d.DialContext(ctx, "tcp", net.JoinHostPort(ep.IPAddress, strconv.Itoa(registryPort)))
		if err != nil {
			return false, nil
		}
		c.Close()
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("the cloud's registry %s did not answer within %s (docker logs %s): %w", name, limit, name, err)
	}
	return nil
}
