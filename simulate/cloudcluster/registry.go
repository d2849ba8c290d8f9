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
	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/ecrtoken"
	"github.com/handover-sh/handover/waits"
)

// A cluster's cloud has a container registry, as ECR and ACR are a
// cloud's: a registry container on the kind network answering, by Docker's
// embedded DNS, under the registry's name (and, for a provider whose
// credential plugins call an API of the registry's, under that API's name
// too, relayed to the cloud). Its names are served over TLS with a
// certificate of the cluster's own CA, which the nodes trust for these
// names only: containerd for the registry (its certs.d). Its tokens are
// the cloud's, checked with the key the cloud signs them with.

const (
	// registryDir is the registry container's files, from the state dir.
	registryDir          = "/etc/handover-registry"
	registryPort         = 443
	registryStateSubdir  = "registry"
	registryTokenKeyFile = "token.key"
	// RegistryCertsSubdir holds containerd's files for the registry under
	// its StateDir, to mount at CertsDir on every node.
	RegistryCertsSubdir = "certs.d"
)

// Registry is a cloud's registry as its container serves it and the nodes
// reach it (Served.Registry).
type Registry struct {
	Host string // the registry's name
	// APIHost is an API name the container also answers under, relayed
	// to the cloud's TLS listener at Upstream (HOST:PORT); "": none. With
	// the ACR scheme, Upstream takes the token exchange.
	APIHost, Upstream string
	// Scheme is the registry's login (registry.SchemeECR or SchemeACR;
	// "" is ECR's).
	Scheme  string
	User    string // the tokens' user name
	Service string // named in the registry's challenge
	// StateDir holds registry/ (the container's files), certs.d/
	// (containerd's on every node) and the cluster CA's ca.crt.
	StateDir string
}

// CertsDir is the registry's directory in containerd's certs.d on every
// node.
func (r Registry) CertsDir() string { return nodeimage.RegistryConfigDir + "/" + r.Host }

// registryContainer names a cluster's registry container.
func registryContainer(cluster string) string { return cluster + "-registry" }

// WriteFiles writes the CA's certificate, the registry's certificate for
// names, a new token key and containerd's hosts.toml: it returns the
// token key's path (the cloud's --registry-token-key).
func (r Registry) WriteFiles(ca *pki.CA, names []string) (string, error) {
	cert, key, err := ca.Issue(names, nil)
	if err != nil {
		return "", err
	}
	tokenKey, err := ecrtoken.NewKey()
	if err != nil {
		return "", err
	}
	state, certs := filepath.Join(r.StateDir, registryStateSubdir), filepath.Join(r.StateDir, RegistryCertsSubdir)
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
		RegistryCertsSubdir + "/ca.crt":  ca.CertPEM,
		RegistryCertsSubdir + "/hosts.toml": []byte(`server = "https://` + r.Host + `"

[host."https://` + r.Host + `"]
  capabilities = ["pull", "resolve"]
  ca = "` + r.CertsDir() + `/ca.crt"
`),
	}
	for name, content := range files {
		if err := privatefs.WriteFile(filepath.Join(r.StateDir, name), content); err != nil {
			return "", err
		}
	}
	keyFile := filepath.Join(state, registryTokenKeyFile)
	return keyFile, ecrtoken.WriteKey(keyFile, tokenKey)
}

// startRegistry runs the cluster's registry container and waits until it
// answers; one with an API name relays that API to the cloud.
func startRegistry(ctx context.Context, cluster string, r Registry) error {
	name := registryContainer(cluster)
	reg := filepath.Join(r.StateDir, registryStateSubdir)
	cmd := []string{"--listen", ":" + strconv.Itoa(registryPort), "--host", r.Host, "--user", r.User, "--service", r.Service,
		"--cert", registryDir + "/tls.crt", "--key", registryDir + "/tls.key",
		"--token-key", registryDir + "/" + registryTokenKeyFile}
	if r.Scheme != "" {
		cmd = append(cmd, "--scheme", r.Scheme)
	}
	aliases := []string{r.Host}
	if r.Upstream != "" {
		cmd = append(cmd, "--api-upstream", "https://"+r.Upstream, "--ca", registryDir+"/ca.crt")
	}
	if r.APIHost != "" {
		cmd = append(cmd, "--api-host", r.APIHost)
		aliases = append(aliases, r.APIHost)
	}
	for _, s := range nodeimage.RegistrySeeds {
		cmd = append(cmd, "--seed", s)
	}
	spec := engine.RunSpec{Name: name, Image: nodeimage.RegistryImage, Network: engine.KindNetwork,
		Aliases: aliases, RestartRetries: 3, Cmd: cmd,
		Binds:  []string{reg + ":" + registryDir + ":ro"},
		Labels: map[string]string{cloudserver.ClusterLabel: cluster}}
	if err := engine.Run(ctx, spec); err != nil {
		return fmt.Errorf("starting the cloud's registry %s: %w", name, err)
	}
	roots := x509.NewCertPool()
	caFile := filepath.Join(r.StateDir, "ca.crt")
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
		d := &tls.Dialer{NetDialer: &net.Dialer{Timeout: time.Second}, Config: &tls.Config{RootCAs: roots, ServerName: r.Host, MinVersion: tls.VersionTLS12}}
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
