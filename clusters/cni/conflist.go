package cni

import "fmt"

// ConfFile is the CNI configuration file the agent owns.
const ConfFile = "10-handover.conflist"

// Conflist renders the CNI configuration for a node's pod CIDR: ptp veth
// pairs (pod traffic is routed by the node, so kube-proxy rules apply to it
// without br_netfilter) with host-local addressing, and portmap for hostPort.
func Conflist(podCIDR string) []byte {
	return []byte(fmt.Sprintf(`{
  "cniVersion": "0.4.0",
  "name": "handover",
  "plugins": [
    {
      "type": "ptp",
      "ipMasq": false,
      "mtu": 1500,
      "ipam": {
        "type": "host-local",
        "dataDir": "/run/cni-ipam-state",
        "routes": [{"dst": "0.0.0.0/0"}],
        "ranges": [[{"subnet": %q}]]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`, podCIDR))
}
