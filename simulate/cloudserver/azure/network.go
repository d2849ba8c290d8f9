package azure

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// The cluster's virtual network and its one subnet: the node network,
// holding every interface's IP configuration, with the cluster's security
// group and route table. The providers read the subnet for internal load
// balancers (legacy-cloud-providers@v0.29.15 azure/azure_loadbalancer.go,
// cloud-provider-azure@v1.30.4 pkg/provider/azure_loadbalancer.go).

func (f *Face) getVNet(ctx context.Context, c *call) (any, error) {
	n := f.opts.Network
	if !strings.EqualFold(c.name, n.VNet()) {
		return nil, n.errNotFound(typeVNet, c.name)
	}
	all, err := f.instances(ctx, c)
	if err != nil {
		return nil, err
	}
	res := resource{"location": n.Location, "properties": map[string]any{
		"addressSpace": map[string]any{"addressPrefixes": []string{n.CIDR}}, "resourceGuid": uuidOf(n.Cluster, "vnet"),
		"subnets": []any{f.subnet(all)},
	}}
	return settle(res, n.id(typeVNet, n.VNet()), n.VNet(), typeVNet), nil
}

func (f *Face) getSubnet(ctx context.Context, c *call) (any, error) {
	n := f.opts.Network
	if !strings.EqualFold(c.parent, n.VNet()) {
		return nil, n.errNotFound(typeVNet, c.parent)
	}
	if !strings.EqualFold(c.name, n.Subnet()) {
		// As the network provider answers a child it does not have
		// (Azure/azure-quickstart-templates#13639 quotes its NotFound).
		return nil, errorf(http.StatusNotFound, "NotFound", "Resource %s/subnets/%s not found.", n.id(typeVNet, n.VNet()), c.name)
	}
	all, err := f.instances(ctx, c)
	if err != nil {
		return nil, err
	}
	return f.subnet(all), nil
}

// subnet is the subnet as ARM describes it.
func (f *Face) subnet(all []api.Instance) resource {
	n := f.opts.Network
	configs := []any{}
	for _, in := range all {
		for i := range internalIPs(in) {
			configs = append(configs, map[string]any{"id": n.id(typeNIC, nicName(in.Name, i)) + "/ipConfigurations/" + ipConfigName})
		}
	}
	res := resource{"properties": map[string]any{
		"addressPrefix": n.CIDR, "ipConfigurations": configs,
		"networkSecurityGroup":           map[string]any{"id": n.id(typeSecurityGroup, n.SecurityGroup())},
		"routeTable":                     map[string]any{"id": n.id(typeRouteTable, n.RouteTable())},
		"privateEndpointNetworkPolicies": "Disabled", "privateLinkServiceNetworkPolicies": "Enabled",
	}}
	return settle(res, n.subnetID(), n.Subnet(), typeSubnet)
}

// publicLogin is Azure AD's host in the public cloud (go-autorest@v0.11.29
// autorest/azure/environments.go PublicCloud.ActiveDirectoryEndpoint).
const publicLogin = "https://login.microsoftonline.com/"

// providers answers the subscription's resource providers with their
// zones, the only part the cloud-controller-manager reads: Microsoft.Compute's
// virtualMachines zoneMappings (cloud-provider-azure@v1.30.4
// pkg/azureclients/zoneclient/azure_zoneclient.go; it fails to start when
// this call fails, pkg/provider/azure.go). An api-version ARM does not
// serve for its own types is InvalidApiVersionParameter
// (Azure/azure-sdk-for-go#246 quotes it).
func (f *Face) providers(r *http.Request, who caller, version string) (int, any, error) {
	served := versions["microsoft.resources"]
	if !slices.Contains(served, version) {
		return 0, nil, errorf(http.StatusBadRequest, "InvalidApiVersionParameter", "The api-version '%s' is invalid. The supported versions are '%s'.", version, strings.Join(served, ","))
	}
	c := &call{caller: who, r: r, action: "Microsoft.Resources/subscriptions/providers/read", version: version}
	if _, err := f.instances(r.Context(), c); err != nil {
		return 0, nil, err
	}
	n := f.opts.Network
	sub := "/subscriptions/" + n.subscription() + "/providers/"
	zones := []any{}
	if n.AvailabilitySet == "" && len(n.Zones) > 0 {
		zones = append(zones, map[string]any{"location": n.Location, "zones": n.azureZones()})
	}
	compute := map[string]any{"id": sub + "Microsoft.Compute", "namespace": "Microsoft.Compute", "registrationState": "Registered",
		"resourceTypes": []any{
			map[string]any{"resourceType": "virtualMachines", "locations": []string{n.Location}, "zoneMappings": zones},
			map[string]any{"resourceType": "availabilitySets", "locations": []string{n.Location}},
		}}
	network := map[string]any{"id": sub + "Microsoft.Network", "namespace": "Microsoft.Network", "registrationState": "Registered",
		"resourceTypes": []any{}}
	for _, t := range []string{"networkInterfaces", "publicIPAddresses", "loadBalancers", "networkSecurityGroups", "routeTables", "virtualNetworks"} {
		network["resourceTypes"] = append(network["resourceTypes"].([]any), map[string]any{"resourceType": t, "locations": []string{n.Location}})
	}
	return http.StatusOK, map[string]any{"value": []any{compute, network}}, nil
}

// metadataEndpoints tells a client where the cloud's services are, as
// ARM's /metadata/endpoints does, unauthenticated: at api-version 1.0 an
// object (go-autorest@v0.11.29 autorest/azure/metadata_environment.go
// EnvironmentFromURL reads authentication.loginEndpoint and audiences,
// galleryEndpoint, graphEndpoint), at 2019-05-01 an array of clouds
// (cloud-provider-azure's azclient@v0.0.29 cloud.go
// AzureCloudConfigFromURL reads name, resourceManager and
// authentication).
//
// The login endpoint is the public cloud's: this cloud serves no Azure AD
// (its tokens come from the metadata service's managed identity, which
// never calls it), and azidentity refuses an authority without https even
// for a managed identity, whose credential wraps a confidential client
// (azidentity@v1.7.0 confidential_client.go newConfidentialClient,
// azidentity.go setAuthorityHost): cloud-provider-azure v1.30.4 then fails
// to start.
func (f *Face) metadataEndpoints(r *http.Request) (int, any, error) {
	base := "http://" + r.Host + "/"
	if r.TLS != nil {
		base = "https://" + r.Host + "/"
	}
	auth := map[string]any{"loginEndpoint": publicLogin, "audiences": f.audiences()}
	switch r.URL.Query().Get("api-version") {
	case "1.0":
		return http.StatusOK, map[string]any{"galleryEndpoint": "", "graphEndpoint": "", "portalEndpoint": "", "authentication": auth}, nil
	case "2019-05-01":
		return http.StatusOK, []any{map[string]any{"name": "AzureCloud", "resourceManager": base, "authentication": auth,
			"suffixes": map[string]any{}}}, nil
	case "":
		return 0, nil, errNoVersion()
	}
	return 0, nil, errorf(http.StatusBadRequest, "InvalidApiVersionParameter", "The api-version '%s' is invalid. The supported versions are '2019-05-01,1.0'.", r.URL.Query().Get("api-version"))
}
