package azure

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/handover-sh/handover/simulate/cloudserver"
	"github.com/handover-sh/handover/simulate/cloudserver/amazon"
	azureface "github.com/handover-sh/handover/simulate/cloudserver/azure"
)

// The cloud's Azure face, as `simcloud serve` serves it from the flags
// Prepare gives: Azure Resource Manager over TLS, and the instance
// metadata service with the nodes' and the managers' managed identities.

var _ cloudserver.Face = Provider{}

// FaceHelp is serve's paragraph on the Azure face.
func (Provider) FaceHelp() string {
	return `With --azure-listen the same cloud is also served as Azure serves it, for the
azure providers' own code: Azure Resource Manager over TLS on --azure-listen
(bearer tokens from the metadata service's managed identities, each calling as
the component or node it was issued to, so the audit and the fault knobs
apply), and the instance metadata service on --azure-imds-listen. Every ARM and
metadata call is logged to azure-calls.jsonl in --state-dir, an operation the
cloud does not serve among them (answered as ARM answers an unknown one).`
}

// azureFlags serve ARM and the metadata service beside the cloud's API.
type azureFlags struct {
	listen, imdsListen []string
	cert, key          string
	tokenKey           string
	nodeNetwork        string
}

// FaceFlags adds the Azure face's flags to serve's.
func (Provider) FaceFlags(f *pflag.FlagSet) cloudserver.FaceFlags {
	a := &azureFlags{}
	f.StringArrayVar(&a.listen, "azure-listen", nil, "address to serve Azure Resource Manager on, over TLS (repeatable)")
	f.StringVar(&a.cert, "azure-tls-cert", "", "PEM certificate (chain) of the --azure-listen server")
	f.StringVar(&a.key, "azure-tls-key", "", "PEM private key of the --azure-listen server")
	f.StringVar(&a.tokenKey, "azure-token-key", "", "file of the key (32 bytes or more, root only) the metadata service signs managed-identity tokens with, so that a restarted cloud takes the tokens it issued")
	f.StringVar(&a.nodeNetwork, "azure-node-network", "", "the nodes' network (the virtual network's and subnet's CIDR), e.g. the kind network's subnet")
	f.StringArrayVar(&a.imdsListen, "azure-imds-listen", nil, "address to serve Azure's instance metadata service on, answering each VM by its address (repeatable)")
	return a
}

func (a *azureFlags) RequiredTogether() [][]string {
	return [][]string{{"azure-listen", "azure-tls-cert", "azure-tls-key", "azure-token-key", "azure-node-network"}}
}

func (a *azureFlags) Listens() map[string][]string {
	return map[string][]string{"--azure-listen": a.listen, "--azure-imds-listen": a.imdsListen}
}

// Asked: ARM is asked for; the metadata service alone is a mistake.
func (a *azureFlags) Asked() (bool, error) {
	if len(a.listen) == 0 {
		if len(a.imdsListen) > 0 {
			return false, errors.New("--azure-imds-listen needs --azure-listen: it serves the Azure face")
		}
		return false, nil
	}
	if _, _, err := net.ParseCIDR(a.nodeNetwork); err != nil {
		return false, fmt.Errorf("--azure-node-network: %w", err)
	}
	return true, nil
}

// Open makes the Azure face over the cloud.
func (a *azureFlags) Open(in cloudserver.FaceInput) (cloudserver.OpenFace, error) {
	pair, err := tls.LoadX509KeyPair(a.cert, a.key)
	if err != nil {
		return cloudserver.OpenFace{}, fmt.Errorf("--azure-tls-cert/--azure-tls-key: %w", err)
	}
	key, err := os.ReadFile(a.tokenKey)
	if err != nil {
		return cloudserver.OpenFace{}, fmt.Errorf("--azure-token-key: %w", err)
	}
	if len(key) < 32 {
		return cloudserver.OpenFace{}, fmt.Errorf("--azure-token-key %s: %d bytes, want 32 or more", a.tokenKey, len(key))
	}
	calls, err := azureface.OpenCallLog(filepath.Join(in.StateDir, azureface.CallLogFile))
	if err != nil {
		return cloudserver.OpenFace{}, err
	}
	identities := map[string]string{}
	for _, p := range principals {
		identities[azureface.ClientID(in.Cluster, p)] = p
	}
	s := in.Cloud
	face, err := azureface.New(azureface.Options{Cloud: amazon.LocalCloud(s.Handler(), in.Token), Network: faceNetwork(in.Cluster, a.nodeNetwork),
		Identities: identities, TokenKey: key, Registry: in.RegistryHost, Terminated: s.Terminated, StatePath: filepath.Join(in.StateDir, "azure-state.json"), Record: calls.Record})
	if err != nil {
		calls.Close()
		return cloudserver.OpenFace{}, err
	}
	tlsCfg := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	out := []cloudserver.Endpoint{{Handler: face.Handler(), Addrs: a.listen, What: "Azure Resource Manager", TLS: tlsCfg}}
	if len(a.imdsListen) > 0 {
		out = append(out, cloudserver.Endpoint{Handler: face.IMDS(), Addrs: a.imdsListen, What: "Azure's instance metadata service"})
	}
	return cloudserver.OpenFace{Endpoints: out, Close: calls.Close}, nil
}
