// Package provider is the Kubernetes cloud provider of handover's simulated
// cloud: a k8s.io/cloud-provider implementation that is a client of simcloud.
// Each manager's main registers it explicitly with Register; nothing happens
// at import time.
package provider

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	cloudprovider "k8s.io/cloud-provider"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
	"github.com/handover-sh/handover/simulate/cloudprovider/behaviour"
)

// Name is the provider's name (--cloud-provider=kind). ProviderIDs are the
// cloud's (simcloud hands them out in the form of the cluster's profile:
// kind's own kind://docker/<cluster>/<node> unless the cloud-config names
// a provider to behave as), and the provider names itself by their scheme.
const Name = "kind"

// Config is the --cloud-config file.
type Config struct {
	// URL of the simcloud API, e.g. http://handover-simcloud:8080.
	URL string `json:"url"`
	// Token authenticates every call: the cloud generates one per cluster
	// and refuses calls without it.
	Token string `json:"token,omitempty"`
	// Profile is the provider whose cloud-controller-manager the
	// simulated one behaves as (simulate/cloudprovider/behaviour);
	// "" for upstream's.
	Profile string `json:"profile,omitempty"`
	// Registry names the cloud's container registry ("" = none): images
	// under it are pulled with the tokens the cloud issues.
	Registry string `json:"registry,omitempty"`
}

// Cloud implements cloudprovider.Interface against simcloud.
type Cloud struct {
	client *api.Client
	self   string              // this machine's instance name (kubelets ask about themselves)
	as     behaviour.Behaviour // the provider it names things as
}

var (
	_ cloudprovider.Interface    = (*Cloud)(nil)
	_ cloudprovider.LoadBalancer = (*Cloud)(nil)
	_ cloudprovider.InstancesV2  = (*Cloud)(nil)
	_ cloudprovider.Instances    = (*instancesV1)(nil)
	_ cloudprovider.Zones        = (*Cloud)(nil)
	_ cloudprovider.Routes       = (*Cloud)(nil)
)

// Register makes the provider available to a manager's
// cloudprovider.InitCloudProvider. component names the caller in the cloud's
// audit log (kube-controller-manager, cloud-controller-manager, kubelet).
func Register(component string) {
	cloudprovider.RegisterCloudProvider(Name, func(config io.Reader) (cloudprovider.Interface, error) {
		return New(component, config)
	})
}

// New reads the cloud config and returns a provider for component.
func New(component string, config io.Reader) (*Cloud, error) {
	if config == nil {
		return nil, fmt.Errorf("%s cloud provider needs --cloud-config with the simcloud url", Name)
	}
	var cfg Config
	if err := json.NewDecoder(config).Decode(&cfg); err != nil {
		return nil, fmt.Errorf("reading %s cloud config: %w", Name, err)
	}
	if cfg.URL == "" {
		return nil, fmt.Errorf("%s cloud config has no url", Name)
	}
	as, err := behaviour.Lookup(cfg.Profile)
	if err != nil {
		return nil, fmt.Errorf("reading %s cloud config: profile %w", Name, err)
	}
	host, _ := os.Hostname()
	c := api.NewClient(cfg.URL, component)
	c.UserAgent = component + "/" + Name + "-provider"
	c.Token = cfg.Token
	if component == "kubelet" {
		c.Node = host
	}
	return &Cloud{client: c, self: host, as: as}, nil
}

// NewWithClient is a provider over an existing client, naming things as
// the provider as behaves (the zero Behaviour: kind's own).
func NewWithClient(c *api.Client, self string, as behaviour.Behaviour) *Cloud {
	return &Cloud{client: c, self: self, as: as}
}

// Initialize needs nothing: the provider holds no Kubernetes clients.
func (c *Cloud) Initialize(cloudprovider.ControllerClientBuilder, <-chan struct{}) {}

// LoadBalancer is supported.
func (c *Cloud) LoadBalancer() (cloudprovider.LoadBalancer, bool) { return c, true }

// Instances (v1) is what in-tree kubelets use to learn their ProviderID.
func (c *Cloud) Instances() (cloudprovider.Instances, bool) { return &instancesV1{c}, true }

// InstancesV2 is what the cloud node controllers use.
func (c *Cloud) InstancesV2() (cloudprovider.InstancesV2, bool) { return c, true }

// Zones is supported.
func (c *Cloud) Zones() (cloudprovider.Zones, bool) { return c, true }

// Clusters is not supported.
func (c *Cloud) Clusters() (cloudprovider.Clusters, bool) { return nil, false }

// Routes is supported.
func (c *Cloud) Routes() (cloudprovider.Routes, bool) { return c, true }

// ProviderName is the scheme of its ProviderIDs: in-tree kubelets form
// theirs as ProviderName() + "://" + InstanceID (cloudprovider.GetInstanceProviderID),
// and the real provider names itself so ("azure", cloud-provider-azure's
// consts.CloudProviderName).
func (c *Cloud) ProviderName() string { return c.as.Scheme() }

// HasClusterID is true: the managers pass --cluster-name.
func (c *Cloud) HasClusterID() bool { return true }

// API is the simulated cloud's client, for controllers the cloud-provider
// interface has no method for (node IPAM).
func (c *Cloud) API() *api.Client { return c.client }
