package kindcluster

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"sync"

	"github.com/handover-sh/handover/clusters/engine"
)

// A node added to a cluster gets an address no node held before in this
// process, as an instance launched into a subnet does not take the address
// of one terminated a moment ago. Docker's allocator hands a freed address
// out again at once; where a cluster names Nodes by address (aws: the
// private DNS name is ip-a-b-c-d), that would give a new instance the
// name, and the Node, of a removed one.

var addresses struct {
	sync.Mutex
	high uint32 // the highest address handed out
}

// freshAddress is the next address above every one in use on the network
// and every one handed out before.
func freshAddress(ctx context.Context) (string, error) {
	subnet, used, err := engine.NetworkAddresses(ctx, dockerNetwork)
	if err != nil {
		return "", err
	}
	addresses.Lock()
	defer addresses.Unlock()
	next := nextAddress(subnet, used, addresses.high)
	if next == nil {
		return "", fmt.Errorf("the %s network %s has no address left above those used", dockerNetwork, subnet)
	}
	addresses.high = toUint(next)
	return next.String(), nil
}

// nextAddress is the address after the highest of used and high inside
// subnet, short of its broadcast address; nil when none is left.
func nextAddress(subnet *net.IPNet, used []net.IP, high uint32) net.IP {
	for _, ip := range used {
		if v := toUint(ip); subnet.Contains(ip) && v > high {
			high = v
		}
	}
	base := toUint(subnet.IP)
	if high < base+1 {
		high = base + 1 // the gateway's
	}
	ones, bits := subnet.Mask.Size()
	broadcast := base | (1<<uint(bits-ones) - 1)
	if high+1 >= broadcast {
		return nil
	}
	out := make(net.IP, 4)
	binary.BigEndian.PutUint32(out, high+1)
	return out
}

func toUint(ip net.IP) uint32 {
	if v4 := ip.To4(); v4 != nil {
		return binary.BigEndian.Uint32(v4)
	}
	return 0
}

// addressTaken: the engine refused an address another container took
// between the look and the run.
func addressTaken(err error) bool {
	return err != nil && strings.Contains(err.Error(), "Address already in use")
}

// noChosenAddresses: the network's subnet was not given when it was made,
// so the engine takes no address from its client.
func noChosenAddresses(err error) bool {
	return err != nil && strings.Contains(err.Error(), "user configured subnets")
}
