package cni

import (
	"fmt"
	"net"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
)

// TableName is the nftables table holding the agent's NAT rule.
const TableName = "handover-cni"

// EnsureMasquerade (re)writes one rule: traffic from the pod network to
// anywhere outside it leaves with the node's address. Pod-to-pod traffic
// keeps its source, so pods see each other's real addresses.
func EnsureMasquerade(podNetwork *net.IPNet) error {
	ip := podNetwork.IP.To4()
	if ip == nil {
		return fmt.Errorf("pod network %s is not IPv4", podNetwork)
	}
	c, err := nftables.New()
	if err != nil {
		return fmt.Errorf("opening nftables: %w", err)
	}
	table := &nftables.Table{Family: nftables.TableFamilyIPv4, Name: TableName}
	c.AddTable(table)
	c.FlushTable(table)
	chain := c.AddChain(&nftables.Chain{Name: "postrouting", Table: table, Type: nftables.ChainTypeNAT,
		Hooknum: nftables.ChainHookPostrouting, Priority: nftables.ChainPriorityNATSource})
	mask := []byte(podNetwork.Mask)
	c.AddRule(&nftables.Rule{Table: table, Chain: chain, Exprs: []expr.Any{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 12, Len: 4},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4, Mask: mask, Xor: []byte{0, 0, 0, 0}},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: ip},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 16, Len: 4},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4, Mask: mask, Xor: []byte{0, 0, 0, 0}},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: ip},
		&expr.Masq{},
	}})
	if err := c.Flush(); err != nil {
		return fmt.Errorf("writing nftables rules: %w", err)
	}
	return nil
}
