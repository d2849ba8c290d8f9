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
// allocation default to ARM's (IPv4, Dynamic).
func (f *Face) preparePublicIP(_ *stateData, res, old resource) error {
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
