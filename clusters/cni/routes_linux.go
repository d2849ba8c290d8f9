package cni

import (
	"fmt"
	"os"

	"github.com/vishvananda/netlink"
)

// routeProtocol tags routes the agent installs so it can find and remove
// its own, and only its own.
const routeProtocol = netlink.RouteProtocol(0x68)

// SyncRoutes installs want and removes routes the agent installed earlier
// that are no longer wanted.
func SyncRoutes(want []Route) error {
	keep := map[string]bool{}
	for _, r := range want {
		nr := &netlink.Route{Dst: r.Dst, Gw: r.Via, Protocol: routeProtocol}
		if err := netlink.RouteReplace(nr); err != nil {
			return fmt.Errorf("route %s via %s: %w", r.Dst, r.Via, err)
		}
		keep[r.Dst.String()] = true
	}
	have, err := netlink.RouteListFiltered(netlink.FAMILY_V4, &netlink.Route{Protocol: routeProtocol}, netlink.RT_FILTER_PROTOCOL)
	if err != nil {
		return fmt.Errorf("listing routes: %w", err)
	}
	removed := false
	for i := range have {
		if have[i].Dst != nil && !keep[have[i].Dst.String()] {
			if err := netlink.RouteDel(&have[i]); err != nil {
				return fmt.Errorf("removing stale route %s: %w", have[i].Dst, err)
			}
			removed = true
		}
	}
	if removed {
		// Cached next hops would keep a removed route working.
		return os.WriteFile("/proc/sys/net/ipv4/route/flush", []byte("1"), 0o644)
	}
	return nil
}
