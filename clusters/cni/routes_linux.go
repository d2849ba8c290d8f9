package cni

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/vishvananda/netlink"
)

// routeProtocol tags routes the agent installs so it can find and remove
// its own, and only its own.
const routeProtocol = netlink.RouteProtocol(0x68)

// SyncRoutes installs want and removes routes the agent installed earlier
// that are no longer wanted. A route via a next hop on no network of this
// node is left out, as the fabric would: the simulated nodes of a scale
// rehearsal have addresses nothing routes to, and their pod ranges must
// not stop the routes to real nodes from being programmed. It returns how
// many it left out.
func SyncRoutes(want []Route) (unreachable int, err error) {
	keep := map[string]bool{}
	for _, r := range want {
		nr := &netlink.Route{Dst: r.Dst, Gw: r.Via, Protocol: routeProtocol}
		err := netlink.RouteReplace(nr)
		if errors.Is(err, syscall.ENETUNREACH) {
			unreachable++
			continue
		}
		if err != nil {
			return unreachable, fmt.Errorf("route %s via %s: %w", r.Dst, r.Via, err)
		}
		keep[r.Dst.String()] = true
	}
	have, err := netlink.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Protocol: routeProtocol}, netlink.RT_FILTER_PROTOCOL)
	if err != nil {
		return unreachable, fmt.Errorf("listing routes: %w", err)
	}
	removed := false
	for i := range have {
		if have[i].Dst != nil && !keep[have[i].Dst.String()] {
			if err := netlink.RouteDel(&have[i]); err != nil {
				return unreachable, fmt.Errorf("removing stale route %s: %w", have[i].Dst, err)
			}
			removed = true
		}
	}
	if removed {
		// Cached next hops would keep a removed route working.
		return unreachable, os.WriteFile("/proc/sys/net/ipv4/route/flush", []byte("1"), 0o644)
	}
	return unreachable, nil
}
