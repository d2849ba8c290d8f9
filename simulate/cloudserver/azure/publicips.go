package azure

import (
	"context"
	"net/http"
	"strings"
)

// Public IP addresses are the cloud's load balancers (carriers.go): each
// gets its carrier's address when first PUT, as a Standard SKU static
// address is allocated by its PUT (what both providers make for a
// standard load balancer), and keeps it; it shows the frontend that uses
// it (ipConfiguration, which the providers read to tell an address in use
// from one to delete). Deleting it deletes its carrier.

func (f *Face) publicIPs() stored {
	return stored{typ: typePublicIP, pick: func(d *stateData) map[string]resource { return d.PublicIPs },
		prepare: f.preparePublicIP, derive: derivePublicIP, inUse: publicIPInUse, carried: true}
}

func (f *Face) getPublicIP(ctx context.Context, c *call) (any, error) {
	return f.getStored(ctx, c, f.publicIPs())
}
func (f *Face) listPublicIPs(ctx context.Context, c *call) (any, error) {
	return f.listStored(ctx, c, f.publicIPs())
}
func (f *Face) putPublicIP(ctx context.Context, c *call) (int, any, error) {
	return f.putStored(ctx, c, f.publicIPs())
}
func (f *Face) deletePublicIP(ctx context.Context, c *call) (int, error) {
	return f.deleteStored(ctx, c, f.publicIPs())
}

// preparePublicIP keeps the address an existing public IP has (a new one
// gets its carrier's when the cloud has made it); the version and
// allocation default to ARM's (IPv4, Dynamic). A new Basic one is refused
// (basicRetired).
func (f *Face) preparePublicIP(_ *stateData, res, old resource) error {
	if old == nil {
		if err := basicRetired(res); err != nil {
			return err
		}
	}
	p := props(res)
	if _, ok := p["publicIPAddressVersion"]; !ok {
		p["publicIPAddressVersion"] = "IPv4"
	}
	if _, ok := p["publicIPAllocationMethod"]; !ok {
		p["publicIPAllocationMethod"] = "Dynamic"
	}
	if v, _ := p["publicIPAddressVersion"].(string); !strings.EqualFold(v, "IPv4") {
		return errUnserved("This cloud hands out IPv4 public addresses only.")
	}
	delete(p, "ipAddress")
	delete(p, "ipConfiguration")
	if old != nil {
		if addr, ok := props(old)["ipAddress"].(string); ok {
			p["ipAddress"] = addr
		}
	}
	return nil
}

// basicRetired refuses a new IPv4 public IP of the Basic SKU, or of none
// (ARM takes a PUT without a sku as Basic), as ARM has since Basic public
// IPs were retired ("you'll no longer be able to create new ones after 31
// March 2025", Azure Updates): a subscription's quota of them is 0. The
// code and message are ARM's as captured in real responses
// (daveprowse/tac-course#5, 2025-09-10, through go-autorest:
// "StatusCode=400 -- Original Error: Code=\"IPv4BasicSkuPublicIpCountLimitReached\"
// Message=\"Cannot create more than 0 IPv4 Basic SKU public IP addresses
// for this subscription in this region.\""; the same for a template with
// no sku, MicrosoftLearning/AZ-801-...#75, 2025-07-22). The in-tree azure
// provider with an empty loadBalancerSku makes exactly such a PUT
// (legacy-cloud-providers v0.29.x azure/azure_loadbalancer.go: the sku is
// set only for a standard load balancer). TestBasicPublicIPsAreRefused
// holds it.
func basicRetired(res resource) error {
	sku, _ := res["sku"].(map[string]any)
	name, _ := sku["name"].(string)
	version, _ := props(res)["publicIPAddressVersion"].(string)
	if (name == "" || strings.EqualFold(name, "Basic")) && (version == "" || strings.EqualFold(version, "IPv4")) {
		return errorf(http.StatusBadRequest, "IPv4BasicSkuPublicIpCountLimitReached",
			"Cannot create more than 0 IPv4 Basic SKU public IP addresses for this subscription in this region.")
	}
	return nil
}

// frontendsOf are the load balancer frontends that use a public IP.
func frontendsOf(d *stateData, pipID string) []string {
	var out []string
	for _, name := range sortedKeys(d.LoadBalancers) {
		for _, fe := range list(props(d.LoadBalancers[name])["frontendIPConfigurations"]) {
			if sameID(refID(props(fe)["publicIPAddress"]), pipID) {
				id, _ := fe["id"].(string)
				out = append(out, id)
			}
		}
	}
	return out
}

func derivePublicIP(d *stateData, res resource) {
	id, _ := res["id"].(string)
	if fe := frontendsOf(d, id); len(fe) > 0 {
		props(res)["ipConfiguration"] = map[string]any{"id": fe[0]}
	}
}

// publicIPInUse refuses deleting an address a frontend uses, as ARM does
// (cloud-provider-azure@v1.30.4 pkg/consts
// CannotDeletePublicIPErrorMessageCode).
func publicIPInUse(d *stateData, res resource) error {
	id, _ := res["id"].(string)
	if fe := frontendsOf(d, id); len(fe) > 0 {
		return errorf(http.StatusBadRequest, "PublicIPAddressCannotBeDeleted",
			"Public IP address %s can not be deleted since it is still allocated to resource %s. In order to delete the public IP, disassociate/detach the Public IP address from the resource.", id, fe[0])
	}
	return nil
}
