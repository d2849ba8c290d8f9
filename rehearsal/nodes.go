package rehearsal

import (
	"fmt"

	"github.com/handover-sh/handover/simulate/load"
	"github.com/handover-sh/handover/simulate/scale"
)

// What a kind node costs this machine, all told (its containers, and its
// share of the API servers', etcd's and the managers' work). The default
// rehearsal, 3 control planes + 2 workers under moderate load, peaked at
// 1.84 GB across the cluster's containers and kept a 2-core host 50 – 58 %
// busy (docs/measurements.md, "Measured on this machine"): about a sixth of a core a
// node. These stay above that, as simulate/scale's figures do.
const (
	controlPlaneMemory = 640 << 20
	workerMemory       = 256 << 20
	nodesPerCore       = 5
)

// Nodes are the most kind nodes a cluster has at once.
type Nodes struct {
	ControlPlanes, Workers int
	// Why the peak is above what was asked for, for the message ("" for
	// none).
	Why string
}

// Peak is the most nodes a rehearsal has at once: a control plane more
// while one is replaced, and the workers the load joins.
func Peak(controlPlanes, workers int, prof load.Profile) Nodes {
	why := "one control plane more while one is replaced"
	if prof.NodeJoins > 0 {
		why += fmt.Sprintf(", %d worker(s) joined by load %s", prof.NodeJoins, prof.Name)
	}
	return Nodes{ControlPlanes: controlPlanes + 1, Workers: workers + prof.NodeJoins, Why: why}
}

// Fit refuses a cluster the machine cannot hold: more than nodesPerCore
// nodes a core, or more memory than is available. Counts come from flags
// and files unbounded: each is compared before it is multiplied.
func (n Nodes) Fit(m scale.Machine) error {
	if n.ControlPlanes < 0 || n.Workers < 0 {
		return fmt.Errorf("--control-planes %d and --workers %d: counts must not be negative", n.ControlPlanes, n.Workers)
	}
	byCores := m.Cores * nodesPerCore
	if n.ControlPlanes <= byCores {
		byMemory := (m.AvailableBytes - int64(n.ControlPlanes)*controlPlaneMemory) / workerMemory
		if int64(n.Workers) <= min(int64(byCores-n.ControlPlanes), byMemory) {
			return nil
		}
	}
	why := ""
	if n.Why != "" {
		why = " (" + n.Why + ")"
	}
	return fmt.Errorf("%d control plane(s) and %d worker(s) at once%s: this machine (%d cores, %.1f GiB available) holds at most %d kind nodes by its cores (%d a core) "+
		"and, by memory, %d MiB a control plane and %d MiB a worker; give fewer --control-planes or --workers (controlPlanes, workers)",
		n.ControlPlanes, n.Workers, why, m.Cores, float64(m.AvailableBytes)/(1<<30), byCores, nodesPerCore, controlPlaneMemory>>20, workerMemory>>20)
}
