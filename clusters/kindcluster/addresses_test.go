package kindcluster

import (
	"net"
	"testing"
)

// A new node's address is above every address in use and every one given
// before, so a removed node's address is never handed on.
func TestNextAddress(t *testing.T) {
	_, subnet, _ := net.ParseCIDR("172.18.0.0/16")
	ips := func(s ...string) []net.IP {
		var out []net.IP
		for _, x := range s {
			out = append(out, net.ParseIP(x))
		}
		return out
	}
	for _, c := range []struct {
		used []net.IP
		high string
		want string
	}{
		{ips("172.18.0.2", "172.18.0.4", "10.0.0.9"), "", "172.18.0.5"},
		{ips("172.18.0.2"), "172.18.0.7", "172.18.0.8"}, // .3–.7 were handed out and since removed
		{nil, "", "172.18.0.2"},
		{ips("172.18.255.254"), "", ""},
	} {
		var high uint32
		if c.high != "" {
			high = toUint(net.ParseIP(c.high))
		}
		got := nextAddress(subnet, c.used, high)
		if (got == nil && c.want != "") || (got != nil && got.String() != c.want) {
			t.Errorf("used %v high %q: got %v, want %q", c.used, c.high, got, c.want)
		}
	}
}
