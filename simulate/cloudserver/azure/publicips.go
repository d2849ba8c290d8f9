package azure

import (
	"context"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"strings"
)

// Public IP addresses are ARM's alone here: each gets an address from
// Options.PublicIPs when first PUT and keeps it, and shows the frontend
// that uses it (ipConfiguration, which the providers read to tell an
// address in use from one to delete).

func (f *Face) publicIPs() stored {
	return stored{typ: typePublicIP, pick: func(d *stateData) map[string]resource { return d.PublicIPs },
		prepare: f.preparePublicIP, derive: derivePublicIP, inUse: publicIPInUse}
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

// preparePublicIP keeps the address an existing public IP has, or hands
// out the next one; the version and allocation default to ARM's (IPv4,
// Dynamic).
func (f *Face) preparePublicIP(d *stateData, res, old resource) error {
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
	if old != nil {
		if addr, ok := props(old)["ipAddress"].(string); ok {
			p["ipAddress"] = addr
			return nil
		}
	}
	addr, err := nthAddress(f.opts.PublicIPs, d.Addresses)
	if err != nil {
		return err
	}
	d.Addresses++
	p["ipAddress"] = addr
	delete(p, "ipConfiguration")
	return nil
}

// nthAddress is the n-th host address of a range, after its network
// address.
func nthAddress(cidr string, n int) (string, error) {
	_, ipnet, err := net.ParseCIDR(cidr)
	if err != nil || ipnet.IP.To4() == nil {
		return "", fmt.Errorf("the public address range %q is not an IPv4 CIDR", cidr)
	}
	ones, bits := ipnet.Mask.Size()
	if size := 1 << (bits - ones); n+2 >= size {
		return "", errorf(http.StatusBadRequest, "PublicIPCountLimitReached", "Cannot create more than %d public IP addresses in this cloud (%s).", size-2, cidr)
	}
	ip := new(big.Int).SetBytes(ipnet.IP.To4())
	ip.Add(ip, big.NewInt(int64(n+1)))
	return net.IP(ip.FillBytes(make([]byte, 4))).String(), nil
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
