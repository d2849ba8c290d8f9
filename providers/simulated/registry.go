package simulated

import (
	"github.com/handover-sh/handover/clusters/nodeimage"
	"github.com/handover-sh/handover/internal/pki"
	"github.com/handover-sh/handover/simulate/cloudcluster"
	"github.com/handover-sh/handover/simulate/cloudserver"
)

// The simulated cloud's own registry: it issues the registry's tokens
// from its own API (POST /v1/registry/token), and the nodes trust a CA of
// the cluster's own for the registry's one name.

var (
	// RegistryHost is the simulated cloud's registry, and echoImage the
	// echo image there.
	RegistryHost = "registry." + cloudserver.Region + ".simcloud.internal"
	echoImage    = RegistryHost + "/" + nodeimage.EchoRepository
)

// registry is the cluster's registry, its files in the cloud's state dir.
func registry(cluster string) cloudcluster.Registry {
	return cloudcluster.Registry{Host: RegistryHost, User: cloudserver.RegistryUser, Service: "simcloud", StateDir: cloudcluster.StateDir(cluster)}
}

// prepareRegistry makes the registry's files, with a CA of the cluster's
// own for its one name: returned are the cloud's extra serve flags.
func prepareRegistry(cluster string) ([]string, error) {
	reg := registry(cluster)
	ca, err := pki.NewCA("handover cloud "+cluster, []string{reg.Host}, nil)
	if err != nil {
		return nil, err
	}
	keyFile, err := reg.WriteFiles(ca, []string{reg.Host})
	if err != nil {
		return nil, err
	}
	return []string{"--registry", reg.Host, "--registry-token-key", keyFile}, nil
}
