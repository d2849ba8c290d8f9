package cni

import (
	"net"
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

func internalIPv4(n *corev1.Node) net.IP {
	for _, a := range n.Status.Addresses {
		if a.Type != corev1.NodeInternalIP {
			continue
		}
		if ip := net.ParseIP(a.Address).To4(); ip != nil {
			return ip
		}
	}
	return nil
}

// RoutesVia turns a route table (destination CIDR -> target node name) into
// routes through the targets' internal addresses, skipping routes to self
// and to nodes without an address.
func RoutesVia(self string, table map[string]string, nodes []*corev1.Node) []Route {
	byName := map[string]*corev1.Node{}
	for _, n := range nodes {
		byName[n.Name] = n
	}
	var out []Route
	for cidr, target := range table {
		n := byName[target]
		if target == self || n == nil {
			continue
		}
		_, dst, err := net.ParseCIDR(cidr)
		via := internalIPv4(n)
		if err != nil || via == nil || dst.IP.To4() == nil {
			continue
		}
		out = append(out, Route{Dst: dst, Via: via})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dst.String() < out[j].Dst.String() })
	return out
}
