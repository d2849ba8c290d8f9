package main

import (
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"
)

// checkListens refuses, by flag, an address the simulated cloud must not
// listen on: it serves a token's holders on this host and the kind
// network, so only loopback and the kind network's gateway are meant. An
// unspecified address (0.0.0.0, ::, an empty host) would listen on every
// interface, the runner's public ones included; a name may resolve to one.
func checkListens(byFlag map[string][]string) error {
	for _, flag := range slices.Sorted(maps.Keys(byFlag)) {
		for _, a := range byFlag[flag] {
			if err := checkListen(a); err != nil {
				return fmt.Errorf("%s %q: %w; give loopback (127.0.0.1:PORT) or the kind network's gateway (GATEWAY:PORT, from docker network inspect kind)", flag, a, err)
			}
		}
	}
	return nil
}

func checkListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("not IP:PORT: %w", err)
	}
	if port == "" {
		return fmt.Errorf("no port")
	}
	if host == "" {
		return fmt.Errorf("no address, so every interface of the host")
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%s is not an IP address", host)
	}
	if ip.Unmap().IsUnspecified() { // ::ffff:0.0.0.0 is 0.0.0.0
		return fmt.Errorf("%s is every interface of the host", host)
	}
	return nil
}
