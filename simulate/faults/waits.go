package faults

import (
	"time"

	"github.com/handover-sh/handover/waits"
)

// WaitNodeResumed: the faults' wait, in the one table (waits).
const WaitNodeResumed = "fault-node-resumed"

func init() {
	waits.Register("simulate/faults",
		waits.Wait{Name: WaitNodeResumed, Default: 3 * time.Minute, Doc: "a stopped control plane, resumed, renews its kubelet lease and is Ready"})
}
