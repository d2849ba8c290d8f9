package rehearsal

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/handover-sh/handover/providers"
	"github.com/handover-sh/handover/simulate/cloudcluster"
)

// NetworkInput is the shape of the cluster's cloud network as written:
// where users' networks differ from a fresh one in ways the providers
// trip on. Zero is a fresh network.
type NetworkInput struct {
	// RouteTables is how many route tables are tagged for the cluster
	// (0: one, the VPC's main table): the rest are associated with no
	// subnet, as a table a tool tagged for the cluster and left.
	RouteTables int `json:"routeTables,omitempty"`
	// DHCPDomain is the domain-name of the VPC's DHCP options set ("": the
	// region's): the metadata service's local-hostname and hostname end
	// in it, EC2's private DNS names do not.
	DHCPDomain string `json:"dhcpDomain,omitempty"`
}

// validate refuses a shape the provider's simulated cloud does not make
// (providers.NetworkShapes), and one beyond its bounds.
func (n NetworkInput) validate(provider string) error {
	if n == (NetworkInput{}) {
		return nil
	}
	if n.RouteTables < 0 || n.RouteTables > cloudcluster.MaxRouteTables {
		return fmt.Errorf("network.routeTables (--route-tables) %d: give 1 to %d", n.RouteTables, cloudcluster.MaxRouteTables)
	}
	if errs := validation.IsDNS1123Subdomain(n.DHCPDomain); n.DHCPDomain != "" && len(errs) > 0 {
		return fmt.Errorf("network.dhcpDomain (--dhcp-domain) %q: a lower-case DNS domain name: %s", n.DHCPDomain, strings.Join(errs, "; "))
	}
	if p, err := providers.Lookup(provider); err == nil {
		if _, ok := providers.As[providers.NetworkShapes](p); ok {
			return nil
		}
	}
	return fmt.Errorf("network (--route-tables, --dhcp-domain): only with --provider %s, whose simulated cloud shapes its network as the provider's own code reads it",
		strings.Join(providers.NamesWith[providers.NetworkShapes](), " or "))
}

// options are the cluster options that make the shape.
func (n NetworkInput) options() []cloudcluster.Option {
	if n == (NetworkInput{}) {
		return nil
	}
	return []cloudcluster.Option{cloudcluster.WithNetworkShape(cloudcluster.NetworkShape{RouteTables: n.RouteTables, DHCPDomain: n.DHCPDomain})}
}
