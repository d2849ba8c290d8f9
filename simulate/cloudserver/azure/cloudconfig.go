package azure

import (
	"encoding/json"
	"maps"
)

// ProviderConfig is the azure providers' cloud-config (azure.json, the
// file both read: Config in legacy-cloud-providers@v0.29.15
// azure/azure.go and cloud-provider-azure@v1.30.4 pkg/provider/config)
// that points them at this face: resourceManagerEndpoint names it, and
// both then read its /metadata/endpoints (api-version 1.0, and 2019-05-01
// for the cloud-controller-manager's second client); tokens come from the
// managed identity at the metadata service's fixed address.
type ProviderConfig struct {
	Network Network
	// ARM is the face's address (http://host:port).
	ARM string
	// ClientID, when set, is userAssignedIdentityID: the identity of
	// Options.Identities the component's tokens are issued as.
	ClientID string
	// LoadBalancerSku is set on both sides: an empty one is basic in-tree
	// and standard in the cloud-controller-manager (the research note's
	// §6).
	LoadBalancerSku string
	// Extra are further fields, a user's own, over the ones above.
	Extra map[string]any
}

// JSON is the file. vmType is "standard" (availability-set VMs: the
// cloud-controller-manager's default is "vmss", pkg/provider/azure.go
// InitializeCloudFromConfig).
func (c ProviderConfig) JSON() ([]byte, error) {
	n := c.Network
	cfg := map[string]any{
		"cloud": "AzurePublicCloud", "tenantId": uuidOf(n.Cluster, "tenant"), "subscriptionId": n.subscription(),
		"resourceGroup": n.group(), "location": n.Location, "vnetName": n.VNet(), "vnetResourceGroup": n.group(),
		"subnetName": n.Subnet(), "securityGroupName": n.SecurityGroup(), "routeTableName": n.RouteTable(),
		"vmType": "standard", "useManagedIdentityExtension": true, "useInstanceMetadata": true,
		"resourceManagerEndpoint": c.ARM, "loadBalancerSku": c.LoadBalancerSku,
	}
	if n.AvailabilitySet != "" {
		cfg["primaryAvailabilitySetName"] = n.AvailabilitySet
	}
	if c.ClientID != "" {
		cfg["userAssignedIdentityID"] = c.ClientID
	}
	maps.Copy(cfg, c.Extra)
	return json.MarshalIndent(cfg, "", "  ")
}
