package cloudserver

import (
	"crypto/tls"
	"net/http"

	"github.com/spf13/pflag"
)

// Face is a provider whose own code calls an API of its own, which
// `simcloud serve` serves over the cloud, beside the cloud's API, from
// flags of the provider's (a cluster's create passes them:
// cloudcluster.Served). serve asks every registered provider for it
// (providers.As[cloudserver.Face]).
type Face interface {
	// FaceHelp is a paragraph of serve's help about the face's flags.
	FaceHelp() string
	// FaceFlags adds the face's flags to serve's; what it returns reads
	// them once parsed.
	FaceFlags(f *pflag.FlagSet) FaceFlags
}

// FaceFlags are a face's flags as serve parsed them.
type FaceFlags interface {
	// RequiredTogether are groups of the flags given all or none.
	RequiredTogether() [][]string
	// Listens are the addresses each flag that listens gives, by its
	// name ("--flag"): serve holds them to its own rule.
	Listens() map[string][]string
	// Asked says whether the flags ask for the face, refusing flags that
	// ask for part of it.
	Asked() (bool, error)
	// Open makes the face over the cloud, as the flags ask.
	Open(in FaceInput) (OpenFace, error)
}

// FaceInput is the cloud a face is opened over.
type FaceInput struct {
	Cloud *Server
	// Token is the token the cloud requires of its callers (the face
	// calls it so); Cluster its cluster; StateDir where it keeps state.
	Token, Cluster, StateDir string
	// RegistryKey signs the registry's tokens (nil: no registry), and
	// RegistryHost names the cloud's own registry ("": none).
	RegistryKey  []byte
	RegistryHost string
}

// OpenFace is an opened face: the handlers it serves, and what to close
// once they have ended.
type OpenFace struct {
	Endpoints []Endpoint
	Close     func() error
}

// Endpoint is a handler served on addresses (over TLS when TLS is set),
// named for the log.
type Endpoint struct {
	Handler http.Handler
	Addrs   []string
	What    string
	TLS     *tls.Config
}
