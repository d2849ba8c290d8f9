package cloudcluster

import (
	"time"

	"github.com/handover-sh/handover/waits"
)

// The simulated cloud's process waits, in the one table (waits).
const (
	WaitCloudStart = "cloud-start"
	WaitCloudStop  = "cloud-stop"
	WaitNodeRoutes = "node-routes"
)

func init() {
	waits.Register("simulate/cloudcluster",
		waits.Wait{Name: WaitCloudStart, Default: 20 * time.Second, Doc: "a new simulated cloud answers its API"},
		// Its HTTP server gives calls under way 5 s. A delete in a process of
		// its own (an interrupted rehearsal's) takes the default.
		waits.Wait{Name: WaitNodeRoutes, Default: 2 * time.Minute, Doc: "every node's pod range routed by the cloud, before second interfaces are attached"},
		waits.Wait{Name: WaitCloudStop, Default: 8 * time.Second, Doc: "a stopped simulated cloud writes its state and exits, before SIGKILL"})
}
