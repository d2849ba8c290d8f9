package cni

import (
	"net"
	"slices"
	"sort"

	corev1 "k8s.io/api/core/v1"
)

// Route sends a pod CIDR to the node that owns it.
type Route struct {
	Dst *net.IPNet
	Via net.IP
}

// DesiredRoutes computes routes to every other node's IPv4 pod CIDR through
// that node's internal address. Nodes without a CIDR or address are skipped:
// they get a route once they have both.
func DesiredRoutes(self string, nodes []*corev1.Node) []Route {
	var out []Route
	for _, n := range nodes {
		if n.Name == self || n.Spec.PodCIDR == "" {
			continue
		}
		_, dst, err := net.ParseCIDR(n.Spec.PodCIDR)
		if err != nil || dst.IP.To4() == nil {
			continue
		}
		via := internalIPv4(n)
		if via == nil {
			continue
		}
		out = append(out, Route{Dst: dst, Via: via})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dst.String() < out[j].Dst.String() })
	return out
}

// internalIPv4 is a Node's first internal IPv4 address, nil when it has none.
func internalIPv4(n *corev1.Node) net.IP {
	if ips := internalIPv4s(n); len(ips) > 0 {
		return ips[0]
	}
	return nil
}

// internalIPv4s are a Node's internal IPv4 addresses, in its order.
func internalIPv4s(n *corev1.Node) []net.IP {
	var out []net.IP
	for _, a := range n.Status.Addresses {
		if ip := net.ParseIP(a.Address).To4(); a.Type == corev1.NodeInternalIP && ip != nil {
			out = append(out, ip)
		}
	}
	return out
}

// RoutesVia turns a route table (destination CIDR -> the address of the
// instance it targets) into routes, skipping routes to any of self's
// addresses and to targets without one: a cloud route names an instance,
// not a Node, and an instance's Node need not carry its name.
func RoutesVia(self []net.IP, table map[string]net.IP) []Route {
	var out []Route
	for cidr, via := range table {
		if via == nil || slices.ContainsFunc(self, via.Equal) {
			continue
		}
		_, dst, err := net.ParseCIDR(cidr)
		if err != nil || via.To4() == nil || dst.IP.To4() == nil {
			continue
		}
		out = append(out, Route{Dst: dst, Via: via.To4()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dst.String() < out[j].Dst.String() })
	return out
}

// NodeIPv4s are the named Node's internal IPv4 addresses, in its order;
// none when it has none or is not listed.
func NodeIPv4s(name string, nodes []*corev1.Node) []net.IP {
	for _, n := range nodes {
		if n.Name == name {
			return internalIPv4s(n)
		}
	}
	return nil
}
