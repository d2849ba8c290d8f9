package load

import (
	"time"

	"github.com/handover-sh/handover/waits"
)

// The load's waits, in the one table (waits).
const (
	WaitBackends        = "load-backends-ready"
	WaitIngress         = "load-ingress"
	WaitNodeActionGrace = "load-node-action-grace"
	WaitActionRetry     = "load-action-retry"
	WaitNodeInitialised = "load-node-initialised"
	WaitTerminateRetry  = "load-terminate-retry"
	WaitSettle          = "load-settle"
	WaitNodesGone       = "load-nodes-gone"
	WaitPull            = "load-image-pull"
)

func init() {
	waits.Register("simulate/load",
		waits.Wait{Name: WaitBackends, Default: 3 * time.Minute, Doc: "the echo backends behind the load's Services are available"},
		waits.Wait{Name: WaitIngress, Default: 2 * time.Minute, Doc: "the cloud gives each standing load Service an address"},
		waits.Wait{Name: WaitNodeActionGrace, Default: 4 * time.Minute, Doc: "a node join or termination under way when the procedure ends finishes"},
		waits.Wait{Name: WaitActionRetry, Default: 30 * time.Second, Doc: "one load action retries through the API's transient failures"},
		waits.Wait{Name: WaitNodeInitialised, Default: 2 * time.Minute, Doc: "a joined worker loses the uninitialized taint (a CCM initialised it)"},
		waits.Wait{Name: WaitTerminateRetry, Default: 30 * time.Second, Doc: "the cloud accepts the termination of a worker's instance"},
		waits.Wait{Name: WaitNodesGone, Default: 2 * time.Minute, Doc: "the Nodes of the instances the load terminated are deleted, before the observation ends (the stale-node check judges it)"},
		waits.Wait{Name: WaitPull, Default: 45 * time.Second, Doc: "a pod pulling from the cloud's registry runs or its kubelet gives up on the image (twice the kubelet's first back-off, and a kubelet restart), else the pull failed"},
		waits.Wait{Name: WaitSettle, Default: 2 * time.Minute, Doc: "no load Service is still being deleted or waiting for its address, before the end snapshot (at least max-lb-pending: lb-provision judges a Service that waits longer)"},
	)
}
