// Package apilb reads the Envoy configuration kind writes for its
// control-plane load balancer and serves it with lbproxy, so that kind's HA
// path works on hosts that cannot pull the Envoy image. It also renders the
// same configuration, which is how handover updates the balancer when it adds
// or removes control-plane nodes on a live cluster.
package apilb

// Paths kind uses inside its load-balancer container.
const (
	ConfigDir = "/home/envoy"
	CDSPath   = ConfigDir + "/cds.yaml"
	LDSPath   = ConfigDir + "/lds.yaml"
	AdminPort = 10000
)
