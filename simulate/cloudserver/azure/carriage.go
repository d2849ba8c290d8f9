package azure

import (
	"context"
	"slices"
	"strings"

	"github.com/handover-sh/handover/simulate/cloudprovider/api"
)

// What a public IP's carrier carries, read from the load balancers as ARM
// keeps them:
//
//   - Ports: one per load-balancing rule of the frontend on the address,
//     frontendPort to a node port. Both providers' rules use a floating IP
//     (enableFloatingIP, backendPort = the Service's port:
//     legacy-cloud-providers@v0.29.15 azure/azure_loadbalancer.go
//     reconcileLoadBalancerRule, cloud-provider-azure@v1.30.4
//     pkg/provider/azure_loadbalancer.go
//     getExpectedLoadBalancingRulePropertiesForPort): Azure delivers the
//     packet to the node still addressed to the frontend, and kube-proxy
//     takes it by the Service's load balancer IP. A TCP relay cannot keep
//     the destination, so the carrier relays to the port the rule's health
//     probe tests instead, which both providers make the Service's nodePort
//     (a Tcp probe on port.NodePort: the same files, and
//     pkg/provider/azure_loadbalancer_healthprobe.go
//     buildHealthProbeRulesForPort). A rule without a floating IP relays to
//     its backendPort, as Azure does (cloud-provider-azure's
//     disable-load-balancer-floating-ip annotation makes that the nodePort).
//     A floating-IP rule whose probe is kube-proxy's health check (HTTP or
//     HTTPS on /healthz: externalTrafficPolicy Local's healthCheckNodePort,
//     cloud-provider-azure's shared probe on 10256) or that has no probe
//     (UDP) names no nodePort anywhere in ARM, and is not carried.
//   - Nodes: the members of the backend pools of those rules — the
//     interfaces whose IP configuration is in the pool (the
//     nodeIPConfiguration pool type, both providers' default) and the
//     pool's own loadBalancerBackendAddresses — for every port alike.
//   - Service: the first Service the public IP's service tag names; Group:
//     the load balancer whose frontend uses the address.

// healthCheckPath is the path of kube-proxy's health check, which the
// providers probe for a Service with externalTrafficPolicy Local
// (k8s.io/cloud-provider service/helpers GetServiceHealthCheckPathPort)
// and for cloud-provider-azure's shared probe (pkg/consts
// ClusterServiceLoadBalancerHealthProbeDefaultPath).
const healthCheckPath = "/healthz"

// carriage is the spec of every carrier d asks for, by public IP: every
// public IP the face made a carrier for, and every new one. A public IP
// with an address and no carrier (kept by an older face) carries nothing.
func (f *Face) carriage(ctx context.Context, c *call, d *stateData) (map[string]api.LoadBalancerSpec, error) {
	addrs, err := f.poolAddresses(ctx, c, d)
	if err != nil {
		return nil, err
	}
	want := map[string]api.LoadBalancerSpec{}
	for _, k := range sortedKeys(d.PublicIPs) {
		pip := d.PublicIPs[k]
		if _, made := d.Carriers[k]; !made && readProps(pip)["ipAddress"] != nil {
			continue
		}
		want[k] = carriageOf(d, pip, addrs)
	}
	return want, nil
}

// carriageOf is what one public IP carries.
func carriageOf(d *stateData, pip resource, addrs map[string]string) api.LoadBalancerSpec {
	spec := api.LoadBalancerSpec{Service: serviceOf(pip)}
	pipID, _ := pip["id"].(string)
	var nodes []string
	for _, name := range sortedKeys(d.LoadBalancers) {
		lb := d.LoadBalancers[name]
		for _, fe := range list(readProps(lb)["frontendIPConfigurations"]) {
			if !sameID(refID(readProps(fe)["publicIPAddress"]), pipID) {
				continue
			}
			spec.Group, _ = lb["name"].(string)
			feID, _ := fe["id"].(string)
			for _, rule := range list(readProps(lb)["loadBalancingRules"]) {
				if !sameID(refID(readProps(rule)["frontendIPConfiguration"]), feID) {
					continue
				}
				if port, ok := carriedPort(lb, rule); ok {
					spec.Ports = append(spec.Ports, port)
				}
				nodes = append(nodes, members(d, lb, rule, addrs)...)
			}
		}
	}
	slices.Sort(nodes)
	spec.Nodes = slices.Compact(nodes)
	return spec
}

// carriedPort is the cloud's port for a load-balancing rule, and false
// when the cloud cannot carry it (see above).
func carriedPort(lb, rule resource) (api.Port, bool) {
	p := readProps(rule)
	name, _ := rule["name"].(string)
	proto, _ := p["protocol"].(string)
	port := api.Port{Name: name, Protocol: strings.ToUpper(proto), Port: number(p["frontendPort"])}
	if port.Port <= 0 || port.Protocol == "ALL" {
		return port, false // high-availability ports: every port, which a relay per port cannot be
	}
	port.NodePort = nodePort(lb, p)
	return port, port.NodePort > 0
}

// nodePort is the port on the nodes a rule's traffic is relayed to: its
// backendPort without a floating IP, else its probe's port unless that
// probe is kube-proxy's health check; 0 when there is none.
func nodePort(lb resource, rule map[string]any) int32 {
	if floating, _ := rule["enableFloatingIP"].(bool); !floating {
		return number(rule["backendPort"])
	}
	probeID := refID(rule["probe"])
	for _, probe := range list(readProps(lb)["probes"]) {
		if id, _ := probe["id"].(string); probeID == "" || !sameID(id, probeID) {
			continue
		}
		p := readProps(probe)
		proto, _ := p["protocol"].(string)
		if path, _ := p["requestPath"].(string); !strings.EqualFold(proto, "Tcp") && path == healthCheckPath {
			return 0
		}
		return number(p["port"])
	}
	return 0
}

// members are the addresses of a rule's backend pools: their interfaces'
// and their own backend addresses'.
func members(d *stateData, lb, rule resource, addrs map[string]string) []string {
	p := readProps(rule)
	pools := append([]string{refID(p["backendAddressPool"])}, ids(p["backendAddressPools"])...)
	var out []string
	for _, nic := range sortedKeys(d.Pools) {
		if slices.ContainsFunc(d.Pools[nic], func(in string) bool {
			return slices.ContainsFunc(pools, func(pool string) bool { return pool != "" && sameID(pool, in) })
		}) && addrs[nic] != "" {
			out = append(out, addrs[nic])
		}
	}
	for _, pool := range list(readProps(lb)["backendAddressPools"]) {
		if id, _ := pool["id"].(string); !slices.ContainsFunc(pools, func(p string) bool { return p != "" && sameID(p, id) }) {
			continue
		}
		for _, a := range list(readProps(pool)["loadBalancerBackendAddresses"]) {
			if ip, _ := readProps(a)["ipAddress"].(string); ip != "" {
				out = append(out, ip)
			}
		}
	}
	return out
}

// poolAddresses are the addresses of the interfaces in a pool, by
// interface (lower case), from a listing of the instances as the caller;
// an interface whose instance is gone has none. No pool has an interface:
// no listing.
func (f *Face) poolAddresses(ctx context.Context, c *call, d *stateData) (map[string]string, error) {
	out := map[string]string{}
	if len(d.Pools) == 0 {
		return out, nil
	}
	all, err := f.instances(ctx, c)
	if err != nil {
		return nil, err
	}
	for nic := range d.Pools {
		name, i, ok := nicOf(nic)
		if !ok {
			continue
		}
		for _, in := range all {
			if ips := internalIPs(in); strings.EqualFold(in.Name, name) && i < len(ips) {
				out[nic] = ips[i]
			}
		}
	}
	return out, nil
}

// serviceOf is the first Service ("namespace/name") a public IP's tags
// name: cloud-provider-azure's k8s-azure-service, else the in-tree
// provider's service, comma-separated when Services share the address
// (cloud-provider-azure@v1.30.4 pkg/provider/azure_loadbalancer.go
// getServiceFromPIPServiceTags; legacy-cloud-providers@v0.29.15
// azure/azure_loadbalancer.go serviceTagKey, bindServicesToPIP).
func serviceOf(pip resource) string {
	tags, _ := pip["tags"].(map[string]any)
	for _, k := range []string{"k8s-azure-service", "service"} {
		if v, ok := tags[k].(string); ok {
			first, _, _ := strings.Cut(v, ",")
			return strings.TrimSpace(first)
		}
	}
	return ""
}

// readProps is a resource's properties, never made (nil when absent).
func readProps(res resource) map[string]any {
	p, _ := res["properties"].(map[string]any)
	return p
}

// number is a JSON number as an int32 (0 when it is not one).
func number(v any) int32 {
	f, _ := v.(float64)
	return int32(f)
}
