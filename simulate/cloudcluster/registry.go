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

// A cluster's cloud has a container registry, as ECR and ACR are a
// cloud's: a registry container on the kind network answering, by Docker's
// embedded DNS, under the registry's name. The simulated cloud issues its
// tokens from its own API (POST /v1/registry/token); on aws the container
// also answers under ECR's API name, so the
// kubelets' image credential providers reach ECR where the SDK looks for
// it (no override) and containerd pulls from where the token says. Both
// names are served over TLS with a certificate of the cluster's own CA,
// which the nodes trust for these names only: containerd for the
// registry (its certs.d), the SDK through AWS_CA_BUNDLE. ECR's API calls
// go on to the cloud's AWS APIs over TLS too: the tokens they answer with
// are credentials.

var (
	// RegistryHost and ECRAPIHost are the aws cloud's registry and ECR's API.
	RegistryHost = amazon.RegistryHost(simcloud.Region)
	ECRAPIHost   = amazon.ECRAPIHost(simcloud.Region)
	// EchoImageInRegistry is the echo image as pods pull it from the aws
	// cloud's registry.
	EchoImageInRegistry = RegistryHost + "/" + nodeimage.EchoRepository
	// SimRegistryHost is the simulated cloud's own registry, and
	// EchoImageInSimRegistry the echo image there.
	SimRegistryHost        = "registry." + simcloud.Region + ".simcloud.internal"
	EchoImageInSimRegistry = SimRegistryHost + "/" + nodeimage.EchoRepository
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

// cloudRegistry is a cloud's registry as its container serves it and the
// nodes reach it.
type cloudRegistry struct {
	host    string // the registry's name
	apiHost string // ECR's API name, relayed to the cloud ("": none)
	user    string // the tokens' user name
	service string // named in the registry's challenge
	// stateDir holds registry/ (the container's files), certs.d/
	// (containerd's on every node) and the cluster CA's ca.crt.
	stateDir string
}

func awsRegistry(cluster string) cloudRegistry {
	return cloudRegistry{host: RegistryHost, apiHost: ECRAPIHost, user: ecrtoken.User, service: "ecr.amazonaws.com", stateDir: awsStateDir(cluster)}
}

func simRegistry(cluster string) cloudRegistry {
	return cloudRegistry{host: SimRegistryHost, user: simcloud.RegistryUser, service: "simcloud", stateDir: StateDir(cluster)}
}

// certsDir is the registry's directory in containerd's certs.d on every
// node.
func (r cloudRegistry) certsDir() string { return nodeimage.RegistryConfigDir + "/" + r.host }

// registryCertsDir is the aws registry's.
var registryCertsDir = cloudRegistry{host: RegistryHost}.certsDir()

// registryContainer names a cluster's registry container.
func registryContainer(cluster string) string { return cluster + "-registry" }

// prepareRegistry makes the cluster's CA and the certificates, token key
// and node files of ECR: returned are the cloud's extra serve flags.
func prepareRegistry(cluster string, e awsEndpoints) ([]string, error) {
	reg := awsRegistry(cluster)
	dir := reg.stateDir
	gw := net.ParseIP(e.gateway)
	ca, err := pki.NewCA("handover cloud "+cluster, []string{RegistryHost, ECRAPIHost}, []net.IP{gw})
	if err != nil {
		return nil, err
	}
	apiCert, apiKey, err := ca.Issue([]string{ECRAPIHost}, []net.IP{gw})
	if err != nil {
		return nil, err
	}
	for name, content := range map[string][]byte{"ecr-api.crt": apiCert, "ecr-api.key": apiKey} {
		if err := privatefs.WriteFile(filepath.Join(dir, name), content); err != nil {
			return nil, err
		}
	}
	keyFile, err := reg.writeFiles(ca, []string{RegistryHost, ECRAPIHost})
	if err != nil {
		return nil, err
	}
	return []string{"--aws-tls-listen", net.JoinHostPort(e.gateway, strconv.Itoa(e.tlsPort)),
		"--aws-tls-cert", filepath.Join(dir, "ecr-api.crt"), "--aws-tls-key", filepath.Join(dir, "ecr-api.key"),
		"--registry-token-key", keyFile}, nil
}

// prepareSimRegistry makes the simulated cloud's registry files, with a CA
// of the cluster's own for its one name: returned are the cloud's extra
// serve flags.
func prepareSimRegistry(cluster string) ([]string, error) {
	reg := simRegistry(cluster)
	ca, err := pki.NewCA("handover cloud "+cluster, []string{reg.host}, nil)
	if err != nil {
		return nil, err
	}
	keyFile, err := reg.writeFiles(ca, []string{reg.host})
	if err != nil {
		return nil, err
	}
	return []string{"--registry", reg.host, "--registry-token-key", keyFile}, nil
}

// writeFiles writes the CA's certificate, the registry's certificate for
// names, a new token key and containerd's hosts.toml: it returns the
// token key's path.
func (r cloudRegistry) writeFiles(ca *pki.CA, names []string) (string, error) {
	cert, key, err := ca.Issue(names, nil)
	if err != nil {
		return "", err
	}
	tokenKey, err := ecrtoken.NewKey()
	if err != nil {
		return "", err
	}
	state, certs := filepath.Join(r.stateDir, registryStateSubdir), filepath.Join(r.stateDir, registryCertsSubdir)
	for _, d := range []string{state, certs} {
		if err := privatefs.MkdirAll(d); err != nil {
			return "", err
		}
	}
	files := map[string][]byte{
		"ca.crt":                         ca.CertPEM,
		registryStateSubdir + "/ca.crt":  ca.CertPEM,
		registryStateSubdir + "/tls.crt": cert,
		registryStateSubdir + "/tls.key": key,
		registryCertsSubdir + "/ca.crt":  ca.CertPEM,
		registryCertsSubdir + "/hosts.toml": []byte(`server = "https://` + r.host + `"

[host."https://` + r.host + `"]
  capabilities = ["pull", "resolve"]
  ca = "` + r.certsDir() + `/ca.crt"
`),
	}
	for name, content := range files {
		if err := privatefs.WriteFile(filepath.Join(r.stateDir, name), content); err != nil {
			return "", err
		}
	}
	keyFile := filepath.Join(state, registryTokenKeyFile)
	return keyFile, ecrtoken.WriteKey(keyFile, tokenKey)
}

// startRegistry runs the cluster's registry container and waits until it
// answers; an aws one relays ECR's API to the cloud's TLS listener at
// upstream.
func startRegistry(ctx context.Context, cluster string, r cloudRegistry, upstream string) error {
	name := registryContainer(cluster)
	reg := filepath.Join(r.stateDir, registryStateSubdir)
	cmd := []string{"--listen", ":" + strconv.Itoa(registryPort), "--host", r.host, "--user", r.user, "--service", r.service,
		"--cert", registryDir + "/tls.crt", "--key", registryDir + "/tls.key",
		"--token-key", registryDir + "/" + registryTokenKeyFile}
	aliases := []string{r.host}
	if r.apiHost != "" {
		cmd = append(cmd, "--api-host", r.apiHost, "--api-upstream", "https://"+upstream, "--ca", registryDir+"/ca.crt")
		aliases = append(aliases, r.apiHost)
	}
	for _, s := range nodeimage.RegistrySeeds {
		cmd = append(cmd, "--seed", s)
	}
	spec := engine.RunSpec{Name: name, Image: nodeimage.RegistryImage, Network: engine.KindNetwork,
		Aliases: aliases, RestartRetries: 3, Cmd: cmd,
		Binds:  []string{reg + ":" + registryDir + ":ro"},
		Labels: map[string]string{simcloud.ClusterLabel: cluster}}
	if err := engine.Run(ctx, spec); err != nil {
		return fmt.Errorf("starting the cloud's registry %s: %w", name, err)
	}
	roots := x509.NewCertPool()
	caFile := filepath.Join(r.stateDir, "ca.crt")
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
		d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: time.Second}, Config: &tls.Config{RootCAs: roots, ServerName: r.host, MinVersion: tls.VersionTLS12}}
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
