package scale

import (
	"fmt"
	"math"
	"time"
)

// Profile is how large the simulated fleet is.
type Profile struct {
	// Nodes are registered before the procedure starts.
	Nodes int `json:"nodes"`
	// Services are LoadBalancer Services with endpoints on simulated
	// nodes.
	Services int `json:"services"`
	// JoinEvery: while the procedure runs, one more node joins at this
	// interval (0 = none).
	JoinEvery time.Duration `json:"joinEvery"`
	// ThrottleQPS is the cloud's limit per caller (0 = none).
	ThrottleQPS float64 `json:"throttleQPS"`
}

// Defaults a scale rehearsal takes unless told otherwise: a service per
// five nodes, a node joining every 10 s, and a per-caller limit of the
// order clouds give an account (tens of reads a second).
const (
	NodesPerService    = 5
	DefaultJoinEvery   = 10 * time.Second
	DefaultThrottleQPS = 10
)

// MaxNodes leaves room in a scale rehearsal's pod network (2048 ranges) for
// the real nodes and the nodes joining during the procedure.
const MaxNodes = 1500

// ForNodes is the default profile for n simulated nodes.
func ForNodes(n int) Profile {
	if n == 0 {
		return Profile{}
	}
	return Profile{Nodes: n, Services: max(1, n/NodesPerService), JoinEvery: DefaultJoinEvery, ThrottleQPS: DefaultThrottleQPS}
}

// None says whether there is no simulated fleet.
func (p Profile) None() bool { return p.Nodes == 0 }

// Validate checks the numbers, and that the machine can hold the fleet.
func (p Profile) Validate(m Machine) error {
	switch {
	case p.Nodes < 0 || p.Services < 0 || p.JoinEvery < 0 || p.ThrottleQPS < 0:
		return fmt.Errorf("--scale: counts, intervals and rates must not be negative (nodes %d, services %d, join every %s, throttle %g QPS)",
			p.Nodes, p.Services, p.JoinEvery, p.ThrottleQPS)
	case math.IsNaN(p.ThrottleQPS) || math.IsInf(p.ThrottleQPS, 0):
		return fmt.Errorf("--scale-throttle (scale.throttleQPS) %g: give requests a second, or 0 for none", p.ThrottleQPS)
	case p.None() && (p.Services > 0 || p.JoinEvery > 0 || p.ThrottleQPS > 0):
		return fmt.Errorf("--scale-services, --scale-join-every and --scale-throttle (scale.services, .joinEvery, .throttleQPS) describe simulated nodes: give --scale N (scale.nodes) too")
	case p.None():
		return nil
	case p.Nodes > MaxNodes:
		return fmt.Errorf("--scale (scale.nodes) %d: at most %d, so the pod network keeps a range for every node that joins", p.Nodes, MaxNodes)
	case p.Services > p.Nodes:
		return fmt.Errorf("--scale-services (scale.services) %d > --scale (scale.nodes) %d: each Service's endpoint sits on a simulated node of its own", p.Services, p.Nodes)
	case p.JoinEvery > 0 && p.JoinEvery < time.Second:
		return fmt.Errorf("--scale-join-every (scale.joinEvery) %s is below 1s", p.JoinEvery)
	}
	if most := m.MostNodes(); p.Nodes > most {
		return fmt.Errorf("--scale %d: this machine (%d cores, %.1f GiB available) holds at most %d simulated nodes (%d per core, %d MiB each beyond %.0f GiB for the cluster); give a smaller --scale",
			p.Nodes, m.Cores, float64(m.AvailableBytes)/(1<<30), most, nodesPerCore, nodeMemory>>20, float64(clusterMemory)/(1<<30))
	}
	return nil
}
