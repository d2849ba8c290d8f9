package cloudcluster

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/handover-sh/handover/internal/privatefs"
	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
)

// wiring is how a provider's clusters are made: the provider, the Cloud
// that wires its code in, and the profile the cloud-config names (an
// imitation's: the simulated manager behaves as that provider's).
type wiring struct {
	provider providers.Provider
	cloud    Cloud
	profile  string
}

// wire finds the wiring of the provider named ("": the default).
func wire(name string) (wiring, error) {
	p, err := lookup(name)
	if err != nil {
		return wiring{}, err
	}
	if p.Runs() == providers.Imitated {
		return imitation(p)
	}
	c, ok := providers.As[Cloud](p)
	if !ok {
		return wiring{}, fmt.Errorf("provider %s runs %s, which no cluster of handover's is wired for", p.Name(), p.Runs())
	}
	return wiring{provider: p, cloud: c}, nil
}

func lookup(name string) (providers.Provider, error) {
	if name == "" {
		return providers.Default(), nil
	}
	return providers.Lookup(name)
}

// imitation wires an imitated provider's cluster: the default provider's,
// its manager behaving as p's does (simulate/cloudprovider/behaviour).
func imitation(p providers.Provider) (wiring, error) {
	profile := providers.ProfileName(p.Name())
	if _, err := behaviour.Lookup(profile); err != nil {
		return wiring{}, err
	}
	w, err := wire("")
	w.provider, w.profile = p, profile
	return w, err
}

// ValidateProvider refuses a provider no cluster can be made for: one
// handover does not have (naming those it has), or an imitation the
// simulated manager cannot behave as.
func ValidateProvider(name string) error {
	_, err := wire(name)
	return err
}

// providerFile records, in a cluster's state dir, the provider its cloud
// was made for: its node hooks and cleanup, in any later process, are
// that provider's.
const providerFile = "provider"

func recordProvider(dir string, p providers.Provider) error {
	return privatefs.WriteFile(filepath.Join(dir, providerFile), []byte(p.Name()+"\n"))
}

// cloudOf is the Cloud a cluster's cloud was made with, and false for a
// cluster without a cloud. A cloud made before clusters recorded their
// provider is the default provider's.
func cloudOf(cluster string) (Cloud, bool, error) {
	dir := StateDir(cluster)
	if _, err := os.Stat(filepath.Join(dir, cloudConfigFile)); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	raw, err := os.ReadFile(filepath.Join(dir, providerFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("cluster %q's provider: %w", cluster, err)
	}
	w, err := wire(strings.TrimSpace(string(raw)))
	if err != nil {
		return nil, false, fmt.Errorf("cluster %q's cloud: %w", cluster, err)
	}
	return w.cloud, true, nil
}
