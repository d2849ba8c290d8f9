// Package cni is handover's pod network for kind nodes (kind's own kindnetd
// cannot be had offline). An agent on every node writes a ptp CNI
// configuration for the node's pod CIDR, routes every other node's pod CIDR
// via that node's address, and masquerades pod traffic leaving the pod
// network. Route programming can be switched off so that a simulated cloud's
// route controller owns the routes instead.
package cni
